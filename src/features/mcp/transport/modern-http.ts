import type { IncomingMessage, ServerResponse } from 'node:http';
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import type { Identity } from '../../../kernel/engine/context.js';
import { headerValue } from '../../../kernel/engine/context.js';
import type { Logger } from '../../../kernel/observability/logger.js';
import type { Aggregator, OperationContext, View } from '../aggregator.js';
import { RpcFailure, RPC } from '../rpc-errors.js';
import type { ListKind } from '../upstream/upstream-server.js';
import { GATEWAY_VERSION } from '../upstream/upstream-server.js';
import { capabilitiesFor, instructionsFor } from './gateway-mcp-server.js';
import { canBeAsked, InputRounds, type Round, type RoundSink } from '../relay/input-rounds.js';
import { RoundRelay } from '../relay/round-relay.js';
import type { SessionBus } from '../relay/session-bus.js';
import type { SessionSeal } from '../relay/session-seal.js';
import { ownerOf } from '../session-owner.js';
import { prefixedName } from '../naming.js';
import { dispatchRequest } from '../dispatch/dispatcher.js';
import { MCP_METHODS } from '../dispatch/method-table.js';
import { runAnswerSteps, wantsAnswer, type AnswerSteps } from '../dispatch/answer-steps.js';

/** Revisions served statelessly with per-request `_meta` (no initialize, no session). */
export const MODERN_VERSIONS = ['2026-07-28'];
/** Every revision the endpoint speaks, newest first. */
export const ALL_VERSIONS = [...MODERN_VERSIONS, ...SUPPORTED_PROTOCOL_VERSIONS];

const META_VERSION = 'io.modelcontextprotocol/protocolVersion';
const META_SUBSCRIPTION = 'io.modelcontextprotocol/subscriptionId';
const META_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
const META_LOG_LEVEL = 'io.modelcontextprotocol/logLevel';
/** `_meta` keys of this revision, which a tool server of an earlier one is not sent. */
const REVISION_META = /^io\.modelcontextprotocol\/(protocolVersion|clientInfo|clientCapabilities|logLevel)$/;
/** Requests a server may answer with `input_required` (multi-round-trip requests). */
const ROUND_METHODS = new Set(['tools/call', 'prompts/get', 'resources/read']);
const KEEP_ALIVE_MS = 15_000;

/**
 * Whether a request speaks a handshake-free revision: its MCP-Protocol-Version is not one of
 * the handshake-era versions (an unknown version is answered by the modern path with
 * UnsupportedProtocolVersionError). No header: the handshake era (2025-03-26 default).
 */
export function isModernRequest(req: IncomingMessage): boolean {
  const version = headerValue(req.headers, 'mcp-protocol-version')?.trim();
  return !!version && !SUPPORTED_PROTOCOL_VERSIONS.includes(version);
}

/** `=?base64?...?=` header values decoded (MCP's sentinel for non-ASCII names). */
export function decodeHeaderValue(value: string): string {
  const m = /^=\?base64\?([A-Za-z0-9+/=]*)\?=$/.exec(value);
  return m ? Buffer.from(m[1]!, 'base64').toString('utf8') : value;
}

type JsonRpcId = string | number;

interface Listener {
  res: ServerResponse;
  id: JsonRpcId;
  identity: Identity;
  pinned?: string;
  filter: { toolsListChanged?: boolean; promptsListChanged?: boolean; resourcesListChanged?: boolean };
  timer: NodeJS.Timeout;
}

/** The request's `_meta` as a tool server of an earlier revision is sent it (this revision's own keys left out). */
function forEarlierRevisions(meta: Record<string, unknown>): Record<string, unknown> {
  let out: Record<string, unknown> | undefined;
  for (const key in meta) {
    if (!REVISION_META.test(key)) continue;
    out ??= { ...meta };
    delete out[key];
  }
  return out ?? meta;
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function rpcError(id: JsonRpcId | undefined, code: number, message: string, data?: unknown) {
  return { jsonrpc: '2.0', ...(id === undefined ? {} : { id }), error: { code, message, ...(data === undefined ? {} : { data }) } };
}

function openEventStream(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform', 'x-accel-buffering': 'no', connection: 'keep-alive' });
  res.flushHeaders();
}

function writeEvent(res: ServerResponse, message: unknown): void {
  res.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
}

/**
 * Streamable HTTP of the stateless revision (2026-07-28): each POST carries one JSON-RPC
 * request with its protocol version in `_meta` and the MCP-Protocol-Version, Mcp-Method and
 * Mcp-Name headers (checked against the body: 400 HeaderMismatch); `server/discover` tells
 * what the gateway supports; list changes come on `subscriptions/listen` streams.
 */
export class ModernEndpoint {
  private readonly listeners = new Set<Listener>();
  /** Multi-round-trip requests in progress on tool servers of earlier revisions. */
  readonly rounds: InputRounds;
  /** Retries of rounds another instance runs, passed there (sessions on any instance). */
  private readonly roundRelay: RoundRelay;

  constructor(
    private readonly aggregator: Aggregator,
    private readonly logger: Logger,
    seal?: SessionSeal,
    bus?: SessionBus,
  ) {
    this.rounds = new InputRounds(logger, seal, bus);
    this.roundRelay = new RoundRelay(this.rounds, logger, bus);
  }

  /** `steps`: the answer steps of this HTTP request (its answer goes through those that want it before it is written). */
  async handle(req: IncomingMessage, res: ServerResponse, identity: Identity, pinned: string | undefined, body: unknown, steps?: AnswerSteps): Promise<void> {
    const version = headerValue(req.headers, 'mcp-protocol-version')!.trim();
    const message = (body ?? {}) as { jsonrpc?: unknown; id?: JsonRpcId; method?: unknown; params?: Record<string, unknown> };
    const id = typeof message.id === 'string' || typeof message.id === 'number' ? message.id : undefined;
    if (!MODERN_VERSIONS.includes(version)) {
      sendJson(res, 400, rpcError(id, RPC.UNSUPPORTED_PROTOCOL_VERSION, 'Unsupported protocol version', { supported: ALL_VERSIONS, requested: version }));
      return;
    }
    if (req.method !== 'POST') {
      sendJson(res, 400, rpcError(undefined, RPC.INVALID_REQUEST, `Protocol version ${version} has no ${req.method} on the MCP endpoint: POST each request.`));
      return;
    }
    if (!body || typeof body !== 'object' || Array.isArray(body) || message.jsonrpc !== '2.0' || typeof message.method !== 'string') {
      sendJson(res, 400, rpcError(id, RPC.INVALID_REQUEST, 'The body must be one JSON-RPC 2.0 request or notification.'));
      return;
    }
    const method = message.method;
    const params = message.params ?? {};
    if (id === undefined) {
      // This revision defines no client notification over HTTP (cancelling is closing the
      // response stream); a notification is accepted and needs no answer.
      res.writeHead(202).end();
      return;
    }
    const mismatch = this.headerMismatch(req, method, params, version);
    if (mismatch) {
      sendJson(res, 400, rpcError(id, RPC.HEADER_MISMATCH, `Header mismatch: ${mismatch}`));
      return;
    }
    const view: View = { identity, server: pinned };
    if (method === 'subscriptions/listen') {
      this.listen(res, id, view, params);
      return;
    }
    const controller = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) controller.abort();
    });
    const meta = params._meta as Record<string, unknown> | undefined;
    const progressToken = meta?.progressToken;
    let streaming = false;
    const emit = (message: unknown) => {
      if (res.destroyed) return;
      if (!streaming) {
        openEventStream(res);
        streaming = true;
      }
      writeEvent(res, message);
    };
    const declared = meta?.[META_CAPABILITIES];
    const op: OperationContext = {
      signal: controller.signal,
      meta: meta && forEarlierRevisions(meta),
      modern: {
        clientCapabilities: declared && typeof declared === 'object' && !Array.isArray(declared) ? (declared as Record<string, unknown>) : {},
        ...(typeof meta?.[META_LOG_LEVEL] === 'string' ? { logLevel: meta[META_LOG_LEVEL] as string } : {}),
      },
    };
    if (progressToken !== undefined) {
      op.onprogress = (p) => emit({ jsonrpc: '2.0', method: 'notifications/progress', params: { ...p, progressToken } });
    }
    let reply: Record<string, unknown>;
    let status = 200;
    try {
      // A request that can be asked something, or that wants the log messages of its call, runs
      // on a connection of its own (an earlier-revision server's logs and questions are per session).
      const rounds = ROUND_METHODS.has(method) && (params.requestState !== undefined || canBeAsked(meta?.[META_CAPABILITIES]) || typeof meta?.[META_LOG_LEVEL] === 'string');
      const sink: RoundSink = {
        progress: (p) => op.onprogress?.(p as never),
        log: (message) => (typeof meta?.[META_LOG_LEVEL] === 'string' ? emit({ jsonrpc: '2.0', ...message }) : undefined),
      };
      const result = rounds ? await this.round(method, params, view, op, sink) : await this.dispatch(method, params, view, op);
      reply = { jsonrpc: '2.0', id, result };
    } catch (err) {
      if (err instanceof RpcFailure) {
        if (err.code === RPC.METHOD_NOT_FOUND) status = 404;
        reply = rpcError(id, err.code, err.message, err.data);
      } else {
        this.logger.error({ err: (err as Error).message }, 'mcp request failed');
        reply = rpcError(id, RPC.INTERNAL_ERROR, 'The gateway hit an unexpected error.');
      }
    }
    if (steps && wantsAnswer(steps, reply)) {
      const changed = await runAnswerSteps(steps, reply);
      if (changed) {
        reply = changed;
        status = 200;
      }
    }
    if (res.destroyed) return;
    if (streaming) {
      writeEvent(res, reply);
      res.end();
    } else sendJson(res, status, reply);
  }

  /** The first problem of the request-metadata headers, if any. */
  private headerMismatch(req: IncomingMessage, method: string, params: Record<string, unknown>, version: string): string | undefined {
    const metaVersion = (params._meta as Record<string, unknown> | undefined)?.[META_VERSION];
    if (metaVersion !== version) return `MCP-Protocol-Version header ${version} does not match _meta ${META_VERSION} ${JSON.stringify(metaVersion ?? null)}`;
    const methodHeader = headerValue(req.headers, 'mcp-method');
    if (methodHeader === undefined) return 'the Mcp-Method header is missing';
    if (methodHeader !== method) return `Mcp-Method header value '${methodHeader}' does not match body value '${method}'`;
    if (method === 'tools/call' || method === 'prompts/get' || method === 'resources/read') {
      const nameHeader = headerValue(req.headers, 'mcp-name');
      const bodyValue = method === 'resources/read' ? params.uri : params.name;
      if (nameHeader === undefined) return 'the Mcp-Name header is missing';
      const decoded = decodeHeaderValue(nameHeader);
      if (decoded !== bodyValue) return `Mcp-Name header value '${decoded}' does not match body value '${String(bodyValue)}'`;
    }
    return undefined;
  }

  /**
   * A request of a client that can be asked something (it declared elicitation, sampling or
   * roots), or the retry of one (`requestState`): served in rounds. The tool server's
   * questions come back as an `input_required` result; the retry's `inputResponses` answer them.
   */
  private async round(method: string, params: Record<string, unknown>, view: View, op: OperationContext, sink: RoundSink): Promise<Record<string, unknown>> {
    const owner = ownerOf(view.identity);
    const target = String((method === 'resources/read' ? params.uri : params.name) ?? '');
    let round: Round;
    if (typeof params.requestState === 'string' && !InputRounds.owns(params.requestState)) {
      // A tool server's own state (a server of this revision asked): the retry goes to it as it came.
      return this.dispatch(method, params, view, op);
    }
    if (typeof params.requestState === 'string') {
      // A round another instance runs: the retry goes on there.
      if (this.roundRelay.elsewhere(params.requestState)) {
        return this.roundRelay.forward(params.requestState, { owner, method, target, inputResponses: params.inputResponses }, sink, op.signal);
      }
      round = this.rounds.resume(params.requestState, owner, method, target, params.inputResponses);
    } else {
      if (params.requestState !== undefined) throw new RpcFailure(RPC.INVALID_PARAMS, 'requestState must be a string.');
      const meta = params._meta as Record<string, unknown>;
      const logLevel = typeof meta[META_LOG_LEVEL] === 'string' ? (meta[META_LOG_LEVEL] as string) : undefined;
      const clean = { ...params };
      delete clean.inputResponses;
      round = this.rounds.begin(
        owner,
        method,
        target,
        view.identity,
        meta[META_CAPABILITIES] as Record<string, unknown>,
        logLevel,
        view.server ? undefined : (server, logger) => prefixedName(server, logger),
        (session, signal) =>
          this.dispatch(method, clean, view, {
            meta: op.meta,
            modern: op.modern,
            signal,
            session,
            onprogress: (p) => round.sink?.progress(p as never),
          }),
      );
    }
    return this.rounds.serve(round, sink, op.signal);
  }

  private async dispatch(method: string, params: Record<string, unknown>, view: View, op: OperationContext): Promise<Record<string, unknown>> {
    const cacheable = { ttlMs: 0, cacheScope: 'private' as const };
    switch (method) {
      case 'server/discover':
        return {
          resultType: 'complete',
          supportedVersions: ALL_VERSIONS,
          capabilities: (view.server && this.aggregator.pool.get(view.server)?.capabilities) || capabilitiesFor(this.aggregator, view.server, view.identity),
          instructions: instructionsFor(this.aggregator, view.server, view.identity),
          ...cacheable,
          _meta: {
            'io.modelcontextprotocol/serverInfo': (view.server && this.aggregator.pool.get(view.server)?.serverInfo) || {
              name: view.server ? `ai-gateway/${view.server}` : 'ai-gateway',
              version: GATEWAY_VERSION,
            },
          },
        };
      default: {
        // Every other method: the one dispatcher (the method table), whole lists, no session-only methods.
        const result = await dispatchRequest(this.aggregator, method, params, view, op, { wholeLists: true, stateless: true });
        return { resultType: 'complete', ...(MCP_METHODS[method]?.cacheable ? cacheable : {}), ...result };
      }
    }
  }

  /** subscriptions/listen: an SSE stream of the list-changed notifications the caller opted in to. */
  private listen(res: ServerResponse, id: JsonRpcId, view: View, params: Record<string, unknown>): void {
    const asked = (params.notifications ?? {}) as Record<string, unknown>;
    const filter: Listener['filter'] = {};
    for (const key of ['toolsListChanged', 'promptsListChanged', 'resourcesListChanged'] as const) if (asked[key] === true) filter[key] = true;
    openEventStream(res);
    writeEvent(res, { jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: { notifications: filter, _meta: { [META_SUBSCRIPTION]: id } } });
    const timer = setInterval(() => res.write(':\n\n'), KEEP_ALIVE_MS);
    timer.unref();
    const listener: Listener = { res, id, identity: view.identity, pinned: view.server, filter, timer };
    this.listeners.add(listener);
    res.once('close', () => {
      clearInterval(timer);
      this.listeners.delete(listener);
    });
  }

  notifyListChanged(server: string, kind: ListKind): void {
    const key = kind === 'tools' ? 'toolsListChanged' : kind === 'prompts' ? 'promptsListChanged' : 'resourcesListChanged';
    for (const l of this.listeners) {
      if (!l.filter[key]) continue;
      if (l.pinned && l.pinned !== server) continue;
      if (!this.aggregator.maySee(l.identity, server)) continue;
      writeEvent(l.res, { jsonrpc: '2.0', method: `notifications/${kind}/list_changed`, params: { _meta: { [META_SUBSCRIPTION]: l.id } } });
    }
  }

  /** Ends every subscription gracefully (its final response), at shutdown, and every round. */
  close(): void {
    this.roundRelay.close();
    this.rounds.close();
    for (const l of this.listeners) {
      clearInterval(l.timer);
      writeEvent(l.res, { jsonrpc: '2.0', id: l.id, result: { resultType: 'complete', _meta: { [META_SUBSCRIPTION]: l.id } } });
      l.res.end();
    }
    this.listeners.clear();
  }
}
