import { request, type Dispatcher } from 'undici';
import { McpError, type ClientCapabilities, type ServerCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { RpcFailure, RPC } from '../rpc-errors.js';

/** The handshake-free revision the gateway speaks to tool servers that speak no earlier one. */
export const STATELESS_VERSION = '2026-07-28';
const META_VERSION = 'io.modelcontextprotocol/protocolVersion';
const META_CLIENT_INFO = 'io.modelcontextprotocol/clientInfo';
const META_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
const META_LOG_LEVEL = 'io.modelcontextprotocol/logLevel';
const META_SERVER_INFO = 'io.modelcontextprotocol/serverInfo';
/** Rounds of input a request of a client of an earlier revision takes at most. */
const MAX_ROUNDS = 16;

type Message = { method: string; params?: Record<string, unknown> };

/** One request to the server, and what the gateway knows of its caller. */
export interface StatelessCall {
  method: string;
  params: Record<string, unknown>;
  /** The caller's `_meta` (this revision's own keys are set here). */
  meta: Record<string, unknown>;
  headers: Record<string, string>;
  clientCapabilities: ClientCapabilities;
  logLevel?: string;
  signal?: AbortSignal;
  timeoutMs: number;
  onprogress?: (progress: Record<string, unknown>) => void;
  onlog?: (message: Message) => void;
  /**
   * Asks the client what the server asked (a client of an earlier revision, through its
   * session); absent for a 2026-07-28 client, which gets the input_required result itself.
   */
  ask?: (request: Message) => Promise<Record<string, unknown>>;
  /** The caller speaks 2026-07-28 (results keep this revision's fields). */
  modern: boolean;
}

/** The value of an Mcp-Name header: as it is when plain ASCII, else MCP's base64 sentinel. */
function headerValue(value: string): string {
  return /^[\x20-\x7e]*$/.test(value) ? value : `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;
}

/** The JSON-RPC messages of an event stream, as they come. */
async function* events(body: AsyncIterable<Buffer>): AsyncGenerator<Record<string, unknown>> {
  let pending = '';
  for await (const chunk of body) {
    pending += chunk.toString('utf8');
    for (;;) {
      const m = /\r?\n\r?\n/.exec(pending);
      if (!m) break;
      const block = pending.slice(0, m.index);
      pending = pending.slice(m.index + m[0].length);
      const data = block
        .split(/\r?\n/)
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(l.startsWith('data: ') ? 6 : 5))
        .join('\n');
      if (!data) continue;
      try {
        yield JSON.parse(data) as Record<string, unknown>;
      } catch {
        // Not JSON: skipped.
      }
    }
  }
}

/**
 * A client of a remote tool server of the stateless revision (2026-07-28): no handshake and no
 * session; each request is one POST carrying the protocol version, the client's capabilities
 * (its caller's) and log level in `_meta`, and the Mcp-Method / Mcp-Name headers. Answers come
 * as JSON or an event stream (progress and log messages first). An `input_required` result
 * goes to a 2026-07-28 caller as it is; for a caller of an earlier revision each of the
 * server's requests is asked of it (its session) and the request sent again with the answers.
 */
export class StatelessClient {
  capabilities?: ServerCapabilities;
  serverInfo?: { name: string; version: string; title?: string };
  instructions?: string;
  private nextId = 1;
  private nextToken = 1;

  constructor(
    readonly url: string,
    private readonly agent: Dispatcher,
  ) {}

  /** server/discover: whether the server speaks this revision (its capabilities, info and instructions kept). */
  async discover(headers: Record<string, string>, timeoutMs: number): Promise<boolean> {
    const result = await this.send(
      {
        method: 'server/discover',
        params: {},
        meta: {},
        headers,
        clientCapabilities: {},
        timeoutMs,
        modern: true,
      },
      {},
    );
    const versions = result.supportedVersions;
    if (!Array.isArray(versions) || !versions.includes(STATELESS_VERSION)) return false;
    this.capabilities = (result.capabilities ?? {}) as ServerCapabilities;
    this.instructions = typeof result.instructions === 'string' ? result.instructions : undefined;
    const info = (result._meta as Record<string, unknown> | undefined)?.[META_SERVER_INFO] as { name?: unknown; version?: unknown } | undefined;
    if (info && typeof info.name === 'string') this.serverInfo = { ...(info as object), name: info.name, version: String(info.version ?? '') };
    return true;
  }

  /** One request, across as many rounds of input as the server asks for when the caller is asked instead. */
  async request(call: StatelessCall): Promise<Record<string, unknown>> {
    let params = call.params;
    for (let round = 0; ; round++) {
      const result = await this.send(call, params);
      if (result.resultType !== 'input_required' || call.modern) return call.modern ? result : withoutRevisionFields(result);
      if (!call.ask) {
        throw new RpcFailure(
          RPC.MISSING_REQUIRED_CLIENT_CAPABILITY,
          'The tool server needs input from the client (elicitation, sampling or roots); connect with a session that declares those capabilities.',
        );
      }
      if (round >= MAX_ROUNDS) throw new RpcFailure(RPC.SERVER_UNAVAILABLE, `The tool server asked for input more than ${MAX_ROUNDS} times.`);
      const asked = (result.inputRequests ?? {}) as Record<string, Message>;
      const answers = await Promise.all(Object.entries(asked).map(async ([key, req]) => [key, await call.ask!({ method: req.method, params: req.params })] as const));
      params = { ...call.params, inputResponses: Object.fromEntries(answers) };
      if (typeof result.requestState === 'string') params.requestState = result.requestState;
    }
  }

  private async send(call: StatelessCall, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    const meta: Record<string, unknown> = {
      ...call.meta,
      [META_VERSION]: STATELESS_VERSION,
      [META_CLIENT_INFO]: { name: 'ai-gateway', version: '0.1.0' },
      [META_CAPABILITIES]: call.clientCapabilities,
    };
    if (call.logLevel) meta[META_LOG_LEVEL] = call.logLevel;
    const token = call.onprogress ? `gw-${this.nextToken++}` : undefined;
    if (token) meta.progressToken = token;
    const id = this.nextId++;
    const headers: Record<string, string> = {
      ...call.headers,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': STATELESS_VERSION,
      'mcp-method': call.method,
    };
    const name = call.method === 'resources/read' ? params.uri : call.method === 'tools/call' || call.method === 'prompts/get' ? params.name : undefined;
    if (typeof name === 'string') headers['mcp-name'] = headerValue(name);
    const answer = await request(this.url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id, method: call.method, params: { ...params, _meta: meta } }),
      dispatcher: this.agent,
      signal: call.signal,
      headersTimeout: call.timeoutMs,
      bodyTimeout: call.timeoutMs,
    });
    const type = String(answer.headers['content-type'] ?? '');
    let reply: Record<string, unknown> | undefined;
    if (type.includes('text/event-stream')) {
      for await (const message of events(answer.body)) {
        if (message.id === id && ('result' in message || 'error' in message)) {
          reply = message;
          break;
        }
        const p = (message.params ?? {}) as Record<string, unknown>;
        if (message.method === 'notifications/progress' && token !== undefined && p.progressToken === token) {
          const rest = { ...p };
          delete rest.progressToken;
          call.onprogress?.(rest);
        } else if (message.method === 'notifications/message') call.onlog?.({ method: 'notifications/message', params: p });
      }
      answer.body.destroy();
    } else {
      const text = await answer.body.text();
      try {
        reply = JSON.parse(text) as Record<string, unknown>;
      } catch {
        reply = undefined;
      }
    }
    if (!reply || typeof reply !== 'object') throw new RpcFailure(RPC.SERVER_UNAVAILABLE, `The tool server answered HTTP ${answer.statusCode} without a JSON-RPC message.`);
    const error = reply.error as { code?: unknown; message?: unknown; data?: unknown } | undefined;
    if (error) throw new McpError(typeof error.code === 'number' ? error.code : RPC.INTERNAL_ERROR, String(error.message ?? 'error'), error.data);
    if (answer.statusCode >= 300 || !reply.result || typeof reply.result !== 'object') {
      throw new RpcFailure(RPC.SERVER_UNAVAILABLE, `The tool server answered HTTP ${answer.statusCode} without a result.`);
    }
    return reply.result as Record<string, unknown>;
  }

  /**
   * subscriptions/listen: list changes of the server, as they come (each kind once per
   * notification); resolves when the stream ends.
   */
  async listen(headers: Record<string, string>, signal: AbortSignal, onChange: (kind: 'tools' | 'prompts' | 'resources') => void): Promise<void> {
    const id = this.nextId++;
    const answer = await request(this.url, {
      method: 'POST',
      headers: {
        ...headers,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': STATELESS_VERSION,
        'mcp-method': 'subscriptions/listen',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id,
        method: 'subscriptions/listen',
        params: {
          notifications: { toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true },
          _meta: { [META_VERSION]: STATELESS_VERSION, [META_CLIENT_INFO]: { name: 'ai-gateway', version: '0.1.0' }, [META_CAPABILITIES]: {} },
        },
      }),
      dispatcher: this.agent,
      signal,
      bodyTimeout: 0,
    });
    if (!String(answer.headers['content-type'] ?? '').includes('text/event-stream')) {
      await answer.body.dump();
      return;
    }
    for await (const message of events(answer.body)) {
      const m = /^notifications\/(tools|prompts|resources)\/list_changed$/.exec(String(message.method ?? ''));
      if (m) onChange(m[1] as 'tools' | 'prompts' | 'resources');
      if (message.id === id) break;
    }
  }
}

/** A complete result as a client of an earlier revision gets it (without this revision's `resultType`). */
function withoutRevisionFields(result: Record<string, unknown>): Record<string, unknown> {
  if (!('resultType' in result)) return result;
  const out = { ...result };
  delete out.resultType;
  return out;
}
