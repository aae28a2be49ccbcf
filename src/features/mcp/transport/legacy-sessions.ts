import { randomInt, randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Identity } from '../../../kernel/engine/context.js';
import { badRequest } from '../../../contract/errors/gateway-error.js';
import type { Logger } from '../../../kernel/observability/logger.js';
import type { Aggregator } from '../aggregator.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { ListKind } from '../upstream/upstream-server.js';
import { createGatewayMcpServer } from './gateway-mcp-server.js';
import { authInfoFor, ownerOf } from '../session-owner.js';
import { SessionLinks, type SharedChange } from '../relay/session-links.js';
import type { SealedSession, SessionSeal } from '../relay/session-seal.js';
import { SESSION_MAX_AGE_S, type SessionEnds } from '../relay/session-ends.js';
import type { BusMessage, SessionBus } from '../relay/session-bus.js';
import { SubscriptionHolders } from '../relay/subscription-holders.js';
import { noSuchSession } from '../relay/no-session.js';
import { malformedBody } from '../relay/message-guard.js';
import type { AnswerSteps } from '../dispatch/answer-steps.js';

interface Session {
  id: string;
  transport: StreamableHTTPServerTransport;
  server: Server;
  /** The credential that opened it; only it may use the session. */
  owner: string;
  /** The endpoint it was opened on: /mcp (undefined) or /mcp/<server>. */
  pinned?: string;
  /** The identity of its latest request (for list-changed filtering). */
  identity: Identity;
  lastSeen: number;
  /** HTTP requests (and open GET streams) of this session in progress. */
  active: number;
  /** /mcp sessions: the session's own connections to its tool servers, when it needs them. */
  links?: SessionLinks;
  /** When the shared record of ended sessions was last read for it. */
  endsCheckedAt?: number;
}

const IDLE_MS = 30 * 60_000;
const MAX_SESSIONS = 10_000;
/** How often a session looks whether another instance ended it. */
const ENDED_RECHECK_MS = 1000;
/** Longest sealed session id (the seal opens ids up to 4096 characters). */
const MAX_SEALED_ID = 3000;

/** The SDK transport's inner part, which holds what initialize said and the session's streams. */
interface InnerTransport {
  sessionId?: string;
  _initialized?: boolean;
  _streamMapping?: Map<string, unknown>;
  onmessage?: (message: unknown, extra: unknown) => void;
}
const GET_STREAM = '_GET_stream';

function innerOf(transport: StreamableHTTPServerTransport): InnerTransport | undefined {
  return (transport as unknown as { _webStandardTransport?: InnerTransport })._webStandardTransport;
}

const isAnswer = (m: Record<string, unknown>) => m.method === undefined && (typeof m.id === 'number' || typeof m.id === 'string') && ('result' in m || 'error' in m);

/** Whether this copy of the session made the request an answer is for, or runs the call a cancellation is for. */
function isLocal(server: Server, m: Record<string, unknown>): boolean {
  const protocol = server as unknown as { _responseHandlers: Map<unknown, unknown>; _requestHandlerAbortControllers: Map<unknown, unknown> };
  if (isAnswer(m)) return protocol._responseHandlers.has(m.id);
  return protocol._requestHandlerAbortControllers.has((m.params as Record<string, unknown> | undefined)?.requestId);
}

/**
 * Ids of the gateway's requests to the client start at a random point for each copy of a
 * session, so that an answer passed between instances finds the one request it is for.
 */
function distinctRequestIds(server: Server): void {
  (server as unknown as { _requestMessageId: number })._requestMessageId = randomInt(2 ** 40);
}

/** Requests after which no server logs for the session (or that set the level themselves). */
const QUIET_METHODS = new Set(['ping', 'logging/setLevel', 'initialize']);

/** Whether the POST holds a request whose handling may make a tool server log. */
function mayLog(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some((m) => {
    const method = (m as { method?: unknown } | null)?.method;
    return typeof method === 'string' && (m as { id?: unknown }).id !== undefined && !QUIET_METHODS.has(method);
  });
}

function hasProgressToken(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some((m) => (m as { params?: { _meta?: { progressToken?: unknown } } })?.params?._meta?.progressToken !== undefined);
}

/**
 * Streamable HTTP for the handshake-era revisions (2025-03-26 .. 2025-11-25), through the SDK:
 * an `initialize` POST opens a session (Mcp-Session-Id) bound to the credential that opened it
 * and to the endpoint; POST, GET (the server stream) and DELETE then need the same caller on the
 * same endpoint, else 404. A POST without a session id that is not `initialize` is served
 * statelessly (a fresh transport and server for that request), for clients that keep no session.
 */
export class LegacySessions {
  private readonly sessions = new Map<string, Session>();
  private readonly reviving = new Map<string, Promise<Session | undefined>>();
  private readonly sweeper: NodeJS.Timeout;
  /** Which instance's copy of a session holds each of its resource subscriptions. */
  private readonly holders?: SubscriptionHolders;
  /** A tool server by name (what another copy's change names). */
  private readonly serverNamed = (name: string) => this.aggregator.pool.get(name);

  constructor(
    private readonly aggregator: Aggregator,
    private readonly logger: Logger,
    /** Seals session ids (what initialize said), so that any instance serves the session. */
    private readonly seal?: SessionSeal,
    /** Sessions ended with DELETE, on any instance. */
    private readonly ends?: SessionEnds,
    /** Messages of sessions between instances (answers, cancellations, server-stream notifications). */
    private readonly bus?: SessionBus,
  ) {
    if (bus) {
      bus.onMessage = (message) => this.fromBus(message);
      this.holders = new SubscriptionHolders(bus);
    }
    this.sweeper = setInterval(() => this.sweep(), 60_000);
    this.sweeper.unref();
  }

  get size(): number {
    return this.sessions.size;
  }

  /** `steps`: the answer steps of this HTTP request (applied by the dispatch to the answers of its requests). */
  async handle(req: IncomingMessage, res: ServerResponse, identity: Identity, pinned: string | undefined, body: unknown, steps?: AnswerSteps): Promise<void> {
    const sessionId = req.headers['mcp-session-id'];
    (req as IncomingMessage & { auth?: unknown }).auth = authInfoFor(identity, steps);
    // A body that is no JSON-RPC message the gateway can serve: answered here, with the right JSON-RPC error.
    const malformed = req.method === 'POST' && body !== undefined ? malformedBody(body) : undefined;
    if (malformed) {
      const text = JSON.stringify(malformed.error);
      res.writeHead(malformed.status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
      res.end(text);
      return;
    }
    if (typeof sessionId === 'string' && sessionId) {
      const session = this.sessions.get(sessionId) ?? (await this.reviveOnce(sessionId, identity, pinned));
      // Another caller's session, or one opened on another endpoint, does not exist for this caller.
      if (!session || session.owner !== ownerOf(identity) || session.pinned !== pinned || (await this.endedElsewhere(session))) {
        throw noSuchSession();
      }
      session.identity = identity;
      session.lastSeen = Date.now();
      session.active++;
      res.once('close', () => {
        session.active--;
        session.lastSeen = Date.now();
      });
      if (req.method === 'POST' && this.bus?.active) {
        if (this.passOn(session, req, res, body)) return;
        await this.levelFromStore(session, body);
      }
      await session.transport.handleRequest(req, res, body);
      return;
    }
    if (req.method !== 'POST') {
      throw badRequest('An Mcp-Session-Id header is required for GET and DELETE (open a session with initialize).', 'Mcp-Session-Id');
    }
    if (isInitializeRequest(body)) await this.open(req, res, identity, pinned, body);
    else await this.stateless(req, res, pinned, body);
  }

  /**
   * The SDK server of one session, with its own connections to the servers when it needs them
   * (requests to the client, logs, subscriptions); `current` is the session once it exists.
   * /mcp/<server> sessions come here only for servers of the stateless revision, which ask through them.
   */
  private sessionServer(pinned: string | undefined, identity: Identity, current: () => Session | undefined): { server: Server; links: SessionLinks | undefined } {
    let links: SessionLinks | undefined;
    const server = createGatewayMcpServer(
      this.aggregator,
      pinned,
      identity,
      (s) =>
        (links = new SessionLinks(
          s,
          () => current()?.identity ?? identity,
          this.logger,
          !pinned,
          (m) => this.streamElsewhere(current(), m),
          (change) => this.shareState(current(), change),
          this.holders?.of(() => current()?.id),
        )),
    );
    return { server, links };
  }

  private async open(req: IncomingMessage, res: ServerResponse, identity: Identity, pinned: string | undefined, body: unknown): Promise<void> {
    if (this.sessions.size >= MAX_SESSIONS) this.evictOldest();
    let session: Session | undefined;
    const { server, links } = this.sessionServer(pinned, identity, () => session);
    const owner = ownerOf(identity);
    const hello = (body as { params?: { capabilities?: Record<string, unknown>; clientInfo?: Record<string, unknown> } }).params ?? {};
    const transport = new StreamableHTTPServerTransport({
      // The id carries what any instance needs to serve the session (sealed: nobody reads or forges it).
      sessionIdGenerator: () => {
        const sealed = this.seal?.seal({
          s: '',
          o: owner,
          g: { ...(pinned ? { p: pinned } : {}), c: hello.capabilities ?? {}, ...(hello.clientInfo ? { i: hello.clientInfo } : {}), t: Math.floor(Date.now() / 1000) },
        });
        // A client that declares more than an id can carry keeps its session on this instance.
        return sealed && sealed.length <= MAX_SEALED_ID ? sealed : randomUUID();
      },
      onsessioninitialized: (id) => {
        session = { id, transport, server, owner: ownerOf(identity), pinned, identity, lastSeen: Date.now(), active: 0, links };
        this.sessions.set(id, session);
      },
      onsessionclosed: (id) => {
        this.forget(id);
        void this.ends?.end(id);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) this.forget(transport.sessionId);
    };
    await server.connect(transport);
    distinctRequestIds(server);
    await transport.handleRequest(req, res, body);
    if (!session) {
      await links?.close();
      await server.close().catch(() => undefined);
    } else {
      links?.adoptClient();
      this.logger.debug({ sessionId: session.id, owner: session.owner }, 'mcp session opened');
    }
  }

  /**
   * Whether another instance ended the session (DELETE) since this one last looked: the shared
   * record is read at most once a second per session, so an end takes effect everywhere within a second.
   */
  private async endedElsewhere(session: Session): Promise<boolean> {
    if (!this.ends?.isShared) return false;
    const now = Date.now();
    if (now - (session.endsCheckedAt ?? 0) < ENDED_RECHECK_MS) return false;
    session.endsCheckedAt = now;
    if (!(await this.ends.ended(session.id))) return false;
    this.drop(session);
    return true;
  }

  /**
   * A POST of only answers (to requests of the gateway) and cancellations, some of them for
   * another instance (the request was made there, or the call runs there): the local ones are
   * handled here, the others passed on; 202 as the transport answers them. False: not such a POST,
   * or all of it is local (the transport serves it).
   */
  private passOn(session: Session, req: IncomingMessage, res: ServerResponse, body: unknown): boolean {
    const messages = (Array.isArray(body) ? body : [body]) as Array<Record<string, unknown>>;
    if (!messages.length || !messages.every((m) => m && typeof m === 'object' && (isAnswer(m) || m.method === 'notifications/cancelled'))) return false;
    const inner = innerOf(session.transport);
    if (!inner) return false;
    const remote = messages.filter((m) => !isLocal(session.server, m));
    if (!remote.length) return false;
    const extra = { authInfo: (req as IncomingMessage & { auth?: AuthInfo }).auth };
    for (const m of messages) if (isLocal(session.server, m)) inner.onmessage?.(m, extra);
    this.bus!.publish({ sid: session.id, kind: 'client', messages: remote });
    res.writeHead(202).end();
    return true;
  }

  /** A message another instance passed on: handled when the session's request, call or server stream is here. */
  private fromBus(message: BusMessage): void {
    if (message.kind === 'state' && message.op === 'answer') return this.holders?.answered(message);
    const session = this.sessions.get(message.sid);
    if (message.kind === 'state' && message.op === 'stream') {
      // Another instance asks whether the session's server stream is open here.
      if (session && innerOf(session.transport)?._streamMapping?.has(GET_STREAM)) this.holders?.answer(message);
      return;
    }
    if (message.kind === 'state' && message.op === 'release') {
      // Another instance ends a subscription this one holds: it is told once it has ended.
      const change = message.messages[0] as SharedChange | undefined;
      const ended = session?.links && change ? session.links.applyShared(change, this.serverNamed) : Promise.resolve();
      void ended.catch(() => undefined).then(() => this.holders?.answer(message));
      return;
    }
    const inner = session && innerOf(session.transport);
    if (!session || !inner) return;
    for (const m of message.messages) {
      if (message.kind === 'state') void session.links?.applyShared(m as SharedChange, this.serverNamed);
      else if (message.kind === 'client' && isLocal(session.server, m)) inner.onmessage?.(m, {});
      else if (message.kind === 'stream' && inner._streamMapping?.has(GET_STREAM)) void session.transport.send(m as never).catch(() => undefined);
    }
  }

  /** A change of the session's state on the servers: told to its copies elsewhere (the level kept for later ones). */
  private async shareState(session: Session | undefined, change: SharedChange): Promise<void> {
    if (!session || !this.bus?.active) return;
    const saved = change.level ? this.bus.saveLevel(session.id, change.level) : undefined;
    this.bus.publish({ sid: session.id, kind: 'state', messages: [change as Record<string, unknown>] });
    await saved;
  }

  /**
   * The log level the client last set through any copy of the session, applied here before a
   * request that may make the servers log: the bus tells this copy too, but maybe after the
   * client's next request arrives here.
   */
  private async levelFromStore(session: Session, body: unknown): Promise<void> {
    const links = session.links;
    if (!links || !this.bus || !mayLog(body)) return;
    const level = await this.bus.loadLevel(session.id);
    if (level && level !== links.logLevel()) await links.applyShared({ level }, this.serverNamed);
  }

  /** A notification for the session's server stream when another instance holds it: passed on (true). */
  private streamElsewhere(session: Session | undefined, message: Record<string, unknown>): boolean {
    if (!session || !this.bus?.active) return false;
    const inner = innerOf(session.transport);
    if (!inner || inner._streamMapping?.has(GET_STREAM)) return false;
    this.bus.publish({ sid: session.id, kind: 'stream', messages: [{ jsonrpc: '2.0', ...message }] });
    return true;
  }

  /** Concurrent requests of a session new to this instance serve it with one copy. */
  private reviveOnce(id: string, identity: Identity, pinned: string | undefined): Promise<Session | undefined> {
    let pending = this.reviving.get(id);
    if (!pending) {
      pending = this.revive(id, identity, pinned).finally(() => this.reviving.delete(id));
      this.reviving.set(id, pending);
    }
    return pending;
  }

  /**
   * A session another instance opened (or this one before it restarted): served here as it was
   * opened, from what its sealed id carries. Connections of its own to the servers, when it
   * needs them, are opened here anew.
   */
  private async revive(id: string, identity: Identity, pinned: string | undefined): Promise<Session | undefined> {
    const sealed: SealedSession | undefined = this.seal?.open(id);
    const hello = sealed?.g;
    if (!sealed || !hello || sealed.o !== ownerOf(identity) || hello.p !== pinned) return undefined;
    if (typeof hello.t !== 'number' || hello.t < Date.now() / 1000 - SESSION_MAX_AGE_S) return undefined;
    if (await this.ends?.ended(id)) return undefined;
    const existing = this.sessions.get(id);
    if (existing) return existing;
    if (this.sessions.size >= MAX_SESSIONS) this.evictOldest();
    // Set below, once the server and transport stand; their callbacks read it then.
    let session: Session | undefined = undefined;
    const { server, links } = this.sessionServer(pinned, identity, () => session);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      onsessionclosed: (closed) => {
        this.forget(closed);
        void this.ends?.end(closed);
      },
    });
    transport.onclose = () => this.forget(id);
    await server.connect(transport);
    distinctRequestIds(server);
    // The SDK keeps what initialize said in the transport and the server: as the opening instance had it.
    const inner = innerOf(transport);
    if (!inner) {
      await server.close().catch(() => undefined);
      return undefined;
    }
    inner.sessionId = id;
    inner._initialized = true;
    Object.assign(server as unknown as Record<string, unknown>, { _clientCapabilities: hello.c, _clientVersion: hello.i });
    session = { id, transport, server, owner: sealed.o, pinned, identity, lastSeen: Date.now(), active: 0, links, endsCheckedAt: Date.now() };
    this.sessions.set(id, session);
    // The level the client set through another copy of the session holds here too.
    const level = await this.bus?.loadLevel(id);
    if (level) await links?.applyShared({ level }, this.serverNamed);
    links?.adoptClient();
    this.logger.debug({ owner: session.owner }, 'mcp session served by this instance');
    return session;
  }

  /** A session that ended (DELETE, closed transport): its own connections to the servers end too. */
  private forget(id: string): void {
    const session = this.sessions.get(id);
    this.sessions.delete(id);
    void session?.links?.close();
  }

  private async stateless(req: IncomingMessage, res: ServerResponse, pinned: string | undefined, body: unknown): Promise<void> {
    const server = createGatewayMcpServer(this.aggregator, pinned);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: !hasProgressToken(body) });
    res.once('close', () => {
      void transport.close().catch(() => undefined);
      void server.close().catch(() => undefined);
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  }

  /** Tells every session that may see `server` that its tools, prompts or resources changed. */
  notifyListChanged(server: string, kind: ListKind): void {
    for (const session of this.sessions.values()) {
      if (session.pinned && session.pinned !== server) continue;
      if (!this.aggregator.maySee(session.identity, server)) continue;
      const send = kind === 'tools' ? session.server.sendToolListChanged() : kind === 'prompts' ? session.server.sendPromptListChanged() : session.server.sendResourceListChanged();
      void send.catch(() => undefined);
    }
  }

  private sweep(): void {
    const cutoff = Date.now() - IDLE_MS;
    for (const session of [...this.sessions.values()]) {
      if (session.active !== 0 || session.lastSeen >= cutoff) continue;
      if (this.holders && this.bus?.active && session.links?.holdsSubscriptions()) void this.keepIfListened(session, this.holders);
      else this.drop(session);
    }
  }

  /** An unused copy that holds resource subscriptions: kept while the client's server stream is open on another instance. */
  private async keepIfListened(session: Session, holders: SubscriptionHolders): Promise<void> {
    const listened = await holders.streamOpenElsewhere(session.id);
    if (this.sessions.get(session.id) !== session || session.active !== 0) return;
    if (listened) session.lastSeen = Date.now();
    else this.drop(session);
  }

  private evictOldest(): void {
    let oldest: Session | undefined;
    for (const s of this.sessions.values()) if (!oldest || s.lastSeen < oldest.lastSeen) oldest = s;
    if (oldest) this.drop(oldest);
  }

  private drop(session: Session): void {
    this.sessions.delete(session.id);
    void session.links?.close();
    void session.transport.close().catch(() => undefined);
    void session.server.close().catch(() => undefined);
  }

  /** Ends every session's server stream (GET), so that shutdown does not wait for them; calls in flight go on. */
  drain(): void {
    for (const session of this.sessions.values()) session.transport.closeStandaloneSSEStream();
    void this.letGo();
  }

  /**
   * This instance stops: the shared store no longer names it as the holder of any session's
   * subscriptions (before the session bus closes), so other instances do not wait for it.
   */
  async letGo(): Promise<void> {
    await Promise.all([...this.sessions.values()].map((s) => s.links?.letGo().catch(() => undefined)));
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    await Promise.all([...this.sessions.values()].map((s) => Promise.all([s.links?.close(), s.transport.close().catch(() => undefined), s.server.close().catch(() => undefined)])));
    this.sessions.clear();
  }
}
