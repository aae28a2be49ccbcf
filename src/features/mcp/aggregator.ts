import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import type { Identity } from '../../kernel/engine/context.js';
import type { McpRequestScope } from './authorization.js';
import type { AccessStep } from './dispatch/access-step.js';
import { LIST_METHODS, MCP_METHODS, type ListKey } from './dispatch/method-table.js';
import { gatewayUri, prefixedName, splitName, splitUri } from './naming.js';
import { RPC, RpcFailure, unknownName } from './rpc-errors.js';
import type { ServerPool } from './upstream/server-pool.js';
import type { CallContext, LinkProvider, UpstreamServer } from './upstream/upstream-server.js';
import { SessionLinks } from './relay/session-links.js';
import type { Tracing } from '../../kernel/observability/tracing.js';

/** The opaque cursor of an aggregated list: each server's own cursor under its name. */
function encodeCursor(next: Record<string, string>): string {
  return Buffer.from(JSON.stringify(next)).toString('base64url');
}

function decodeCursor(cursor: string): Record<string, string> {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (value && typeof value === 'object' && !Array.isArray(value) && Object.values(value).every((v) => typeof v === 'string')) return value as Record<string, string>;
  } catch {
    // Not one of ours.
  }
  throw new RpcFailure(-32602, 'Invalid cursor.');
}

/** Who is asking, and through which endpoint: /mcp (all servers) or /mcp/<server> (one, own names). */
export interface View {
  identity: Identity;
  /** Set for /mcp/<server>. */
  server?: string;
  /** The gateway request this is part of (a tool loop's call): its id goes with the call's audit line and usage row. */
  partOf?: string;
}

/** Per-request extras from the caller's transport. */
export interface OperationContext {
  signal?: AbortSignal;
  meta?: Record<string, unknown>;
  onprogress?: (progress: Progress) => void;
  /** The caller's session, or a round of a multi-round-trip request (its own connections to servers, when it has them). */
  session?: LinkProvider;
  /** How long a request to a server may take (a round waits for a person). */
  timeoutMs?: number;
  /** A 2026-07-28 client: its declared capabilities and log level. */
  modern?: CallContext['modern'];
  /** The caller's JSON-RPC id of this request. */
  requestId?: string | number;
}

/** What a request to a server carries for a caller. */
function callContext(view: View, op: OperationContext, progress = false): CallContext {
  return {
    identity: view.identity,
    meta: op.meta,
    signal: op.signal,
    ...(progress && op.onprogress ? { onprogress: op.onprogress } : {}),
    ...(op.session ? { session: op.session, relatedRequestId: op.requestId } : {}),
    ...(op.timeoutMs ? { timeoutMs: op.timeoutMs } : {}),
    ...(op.modern ? { modern: op.modern } : {}),
  };
}

type Item = Record<string, unknown>;

const MAX_PAGES = 50;

/**
 * The MCP operations of the gateway over its tool servers, for one caller's view. Every list
 * entry and every call goes through the one access step (grants, pinned tools, audit); lists
 * show only what the caller may use, calls outside it are refused with a JSON-RPC error; each
 * decision is audited. A server that is down drops out of lists and fails its own calls; the rest work.
 */
export class Aggregator {
  constructor(
    readonly pool: ServerPool,
    readonly access: AccessStep,
    /** Set when traces are exported: each tool call is a span. */
    private readonly tracing?: Tracing,
  ) {}

  /** The servers of a view, in config order. */
  serversOf(view: View): UpstreamServer[] {
    if (view.server) {
      const one = this.pool.get(view.server);
      return one ? [one] : [];
    }
    return [...this.pool.servers.values()];
  }

  /** Whether the caller may see anything of `server` (list-changed notifications, /mcp/<server>). */
  maySee(identity: Identity, server: string): boolean {
    return this.access.maySee(identity, server);
  }

  /** One page of `server`'s list (its own cursor, when continuing). */
  private async fetchPage(server: UpstreamServer, key: ListKey, view: View, op: OperationContext, cursor: string | undefined): Promise<{ items: Item[]; next?: string }> {
    const result = await server.request(LIST_METHODS[key], cursor ? { cursor } : {}, callContext(view, op));
    const got = result[key];
    const next = typeof result.nextCursor === 'string' && result.nextCursor ? result.nextCursor : undefined;
    return { items: Array.isArray(got) ? (got as Item[]) : [], next };
  }

  /** Every page of every visible server (for a caller that does not page). */
  async list(key: ListKey, view: View, op: OperationContext = {}): Promise<Item[]> {
    const items: Item[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const got = await this.listPage(key, view, cursor, op);
      items.push(...got.items);
      cursor = got.nextCursor;
      if (!cursor) break;
    }
    return items;
  }

  /**
   * tools/list, prompts/list, resources/list, resources/templates/list, one page: the next page
   * of every visible server that has one (the first page of each without a cursor), filtered.
   * The cursor the caller gets is opaque: the servers' own cursors, each under its server.
   */
  async listPage(key: ListKey, view: View, cursor: string | undefined, op: OperationContext = {}): Promise<{ items: Item[]; nextCursor?: string }> {
    const started = performance.now();
    const method = LIST_METHODS[key];
    const { capability } = MCP_METHODS[method]!.list!;
    const pending = cursor === undefined ? undefined : decodeCursor(cursor);
    let hidden = 0;
    const servers = this.serversOf(view).filter((s) => {
      if (pending && !(s.name in pending)) return false;
      if (this.access.maySee(view.identity, s.name)) return true;
      hidden++;
      return false;
    });
    const next: Record<string, string> = {};
    const perServer = await Promise.all(
      servers.map(async (server) => {
        try {
          const offered = server.capabilitiesFor();
          if (!(offered instanceof Promise ? await offered : offered)?.[capability]) return [];
          const page = await this.fetchPage(server, key, view, op, pending?.[server.name]);
          if (page.next) next[server.name] = page.next;
          let items = page.items;
          if (key === 'tools') {
            this.access.audit.tools?.learn(
              server.name,
              items.map((item) => item.name),
            );
            const screened = this.access.screenTools(view.identity, server.name, items);
            hidden += screened.hidden;
            items = screened.items;
          } else if (key === 'prompts') {
            const screened = this.access.screenPrompts(view.identity, server.name, items);
            hidden += screened.hidden;
            items = screened.items;
          }
          return items.flatMap((item) => {
            const mapped = this.mapListItem(key, server.name, item, view);
            return mapped ? [mapped] : [];
          });
        } catch {
          // A server that fails its list drops out of it; the others still answer.
          return [];
        }
      }),
    );
    const items = perServer.flat();
    this.access.listed(view.identity, method, view.server, items.length, hidden, started);
    return Object.keys(next).length ? { items, nextCursor: encodeCursor(next) } : { items };
  }

  private mapListItem(key: ListKey, server: string, item: Item, view: View): Item | undefined {
    if (view.server) return item;
    if (key === 'resourceTemplates') {
      if (typeof item.uriTemplate !== 'string') return undefined;
      return { ...item, name: prefixedName(server, String(item.name ?? '')), uriTemplate: gatewayUri(server, item.uriTemplate) };
    }
    if (typeof item.name !== 'string') return undefined;
    const out: Item = { ...item, name: prefixedName(server, item.name) };
    if (key === 'resources') {
      if (typeof item.uri !== 'string') return undefined;
      out.uri = gatewayUri(server, item.uri);
    }
    return out;
  }

  /** Resolves a name of the view to its server and own name. */
  private resolveName(view: View, name: unknown, what: string): { server: UpstreamServer; name: string } {
    if (typeof name !== 'string' || !name) throw new RpcFailure(-32602, `The ${what} name is required.`);
    if (view.server) return { server: this.pool.get(view.server)!, name };
    const parts = splitName(name);
    const server = parts && this.pool.get(parts.server);
    if (!parts || !server) throw unknownName(what, name);
    return { server, name: parts.name };
  }

  private resolveUri(view: View, uri: unknown): { server: UpstreamServer; uri: string } {
    if (typeof uri !== 'string' || !uri) throw new RpcFailure(-32602, 'The resource uri is required.');
    if (view.server) return { server: this.pool.get(view.server)!, uri };
    const parts = splitUri(uri);
    const server = parts && this.pool.get(parts.server);
    if (!parts || !server) throw unknownName('resource', uri);
    return { server, uri: parts.uri };
  }

  /** Decides, runs, audits one request on one server. */
  private async guarded(view: View, method: string, scope: McpRequestScope, name: string, run: () => Promise<Record<string, unknown>>): Promise<Record<string, unknown>> {
    const started = performance.now();
    this.access.require(view.identity, method, scope, name, started);
    try {
      const result = await run();
      this.access.ended(view.identity, method, scope.server, name, result.isError === true ? 'tool_error' : 'ok', started, undefined, view.partOf);
      return result;
    } catch (err) {
      this.access.ended(view.identity, method, scope.server, name, 'error', started, (err as Error).message, view.partOf);
      throw err;
    }
  }

  async callTool(view: View, params: Record<string, unknown>, op: OperationContext = {}): Promise<Record<string, unknown>> {
    const { server, name } = this.resolveName(view, params.name, 'tool');
    const call = () => server.request('tools/call', { ...params, name }, callContext(view, op, true));
    const traced = this.tracing ? traceToolCall.bind(undefined, this.tracing, server.name, name, call) : call;
    const result = await this.guarded(view, 'tools/call', { action: 'call', server: server.name, tool: name }, name, traced);
    return view.server ? result : this.mapContentUris(server.name, result);
  }

  async getPrompt(view: View, params: Record<string, unknown>, op: OperationContext = {}): Promise<Record<string, unknown>> {
    const { server, name } = this.resolveName(view, params.name, 'prompt');
    const result = await this.guarded(view, 'prompts/get', { action: 'read', server: server.name }, name, () =>
      server.request('prompts/get', { ...params, name }, callContext(view, op)),
    );
    if (view.server || !Array.isArray(result.messages)) return result;
    return { ...result, messages: (result.messages as Item[]).map((m) => (m.content ? { ...m, content: this.mapContentItem(server.name, m.content as Item) } : m)) };
  }

  async readResource(view: View, params: Record<string, unknown>, op: OperationContext = {}): Promise<Record<string, unknown>> {
    const { server, uri } = this.resolveUri(view, params.uri);
    const result = await this.guarded(view, 'resources/read', { action: 'read', server: server.name }, uri, () =>
      server.request('resources/read', { ...params, uri }, callContext(view, op)),
    );
    if (view.server || !Array.isArray(result.contents)) return result;
    return { ...result, contents: (result.contents as Item[]).map((c) => (typeof c.uri === 'string' ? { ...c, uri: gatewayUri(server.name, c.uri) } : c)) };
  }

  async complete(view: View, params: Record<string, unknown>, op: OperationContext = {}): Promise<Record<string, unknown>> {
    const ref = (params.ref ?? {}) as Item;
    let server: UpstreamServer;
    let outRef: Item;
    if (ref.type === 'ref/prompt') {
      const r = this.resolveName(view, ref.name, 'prompt');
      server = r.server;
      outRef = { ...ref, name: r.name };
    } else if (ref.type === 'ref/resource') {
      const r = this.resolveUri(view, ref.uri);
      server = r.server;
      outRef = { ...ref, uri: r.uri };
    } else {
      throw new RpcFailure(-32602, 'completion/complete needs a ref of type ref/prompt or ref/resource.');
    }
    return this.guarded(view, 'completion/complete', { action: 'read', server: server.name }, String(outRef.name ?? outRef.uri), async () => {
      if (!server.capabilities?.completions) return { completion: { values: [], hasMore: false } };
      return server.request('completion/complete', { ...params, ref: outRef }, callContext(view, op));
    });
  }

  /**
   * logging/setLevel: the level goes to every visible server that logs, on the session's own
   * connections (a level is state of one session on a server: it never goes on a shared one).
   */
  async setLogLevel(view: View, level: unknown, op: OperationContext): Promise<Record<string, unknown>> {
    if (typeof level !== 'string' || !level) throw new RpcFailure(-32602, 'logging/setLevel needs a level.');
    const session = op.session;
    if (!(session instanceof SessionLinks)) throw new RpcFailure(-32602, 'logging/setLevel needs a session (open one with initialize).');
    session.enable();
    const remembered = session.rememberLogLevel(level);
    const servers = this.serversOf(view).filter((s) => s.capabilities?.logging && this.maySee(view.identity, s.name));
    await Promise.all([
      remembered,
      ...servers.map(async (server) => {
        if (!(await session.linkFor(server))) return;
        try {
          await server.request('logging/setLevel', { level }, callContext(view, op));
        } catch {
          // One server refusing the level does not stop the others.
        }
      }),
    ]);
    return {};
  }

  /** resources/subscribe and resources/unsubscribe, on the session's own connection to the resource's server. */
  async subscription(view: View, uri: unknown, on: boolean, op: OperationContext): Promise<Record<string, unknown>> {
    const method = on ? 'resources/subscribe' : 'resources/unsubscribe';
    const resolved = this.resolveUri(view, uri);
    const session = op.session;
    if (!(session instanceof SessionLinks)) throw new RpcFailure(-32602, `${method} needs a session (open one with initialize).`);
    return this.guarded(view, method, { action: 'read', server: resolved.server.name }, resolved.uri, async () => {
      if (!resolved.server.capabilities?.resources?.subscribe) throw new RpcFailure(RPC.METHOD_NOT_FOUND, `Tool server ${resolved.server.name} offers no resource subscriptions.`);
      if (!on && !session.holds(resolved.server, resolved.uri)) {
        // Not made through this instance: ended where the session's copy that holds it is (if any is).
        await session.releaseElsewhere(resolved.server, resolved.uri);
        return {};
      }
      session.enable();
      if (!(await session.linkFor(resolved.server))) {
        if (!on) return {}; // The connection that held it is gone: nothing to end.
        throw new RpcFailure(RPC.SERVER_UNAVAILABLE, `Tool server ${resolved.server.name} has no room for another session; subscribe later.`);
      }
      const result = await resolved.server.request(method, { uri: resolved.uri }, callContext(view, op));
      await session.rememberSubscription(resolved.server, resolved.uri, on);
      return result;
    });
  }

  /** Resource links and embedded resources in a tool result point back through the gateway. */
  private mapContentUris(server: string, result: Record<string, unknown>): Record<string, unknown> {
    if (!Array.isArray(result.content)) return result;
    return { ...result, content: (result.content as Item[]).map((c) => this.mapContentItem(server, c)) };
  }

  private mapContentItem(server: string, item: Item): Item {
    if (item?.type === 'resource_link' && typeof item.uri === 'string') return { ...item, uri: gatewayUri(server, item.uri) };
    if (item?.type === 'resource' && item.resource && typeof (item.resource as Item).uri === 'string') {
      const resource = item.resource as Item;
      return { ...item, resource: { ...resource, uri: gatewayUri(server, String(resource.uri)) } };
    }
    return item;
  }
}

/** One tool call as a span (GenAI conventions: execute_tool <tool>), failed on an error or an isError result. */
async function traceToolCall(tracing: Tracing, server: string, tool: string, call: () => Promise<Record<string, unknown>>): Promise<Record<string, unknown>> {
  const span = tracing.startSpan(`execute_tool ${tool}`, 'internal', {
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': tool,
    'gen_ai.system': 'mcp',
    'mcp.server': server,
  });
  try {
    const result = await tracing.runIn(span, call);
    if (result.isError === true) span.fail('the tool answered isError', 'tool_error');
    return result;
  } catch (err) {
    span.fail((err as Error)?.message ?? 'failed', 'error');
    throw err;
  } finally {
    span.end();
  }
}
