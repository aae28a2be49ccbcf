import { Agent } from 'undici';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike, Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Identity } from '../../../kernel/engine/context.js';
import type { IdentityForwardingConfig, McpServerConfig } from '../../../generated/gateway.js';
import type { Logger } from '../../../kernel/observability/logger.js';
import type { Progress, ServerCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { redactRelayed } from '../../../kernel/errors/redact.js';
import { secretQueryValues } from '../../../kernel/config/url-query.js';
import { identityHeaders, IDENTITY_META_KEY } from '../../auth/index.js';
import { RpcFailure, RPC } from '../rpc-errors.js';
import { upstreamFailure } from './upstream-failure.js';
import { StatelessClient, STATELESS_VERSION, type StatelessCall } from './stateless-client.js';
import { undiciFetch } from './undici-fetch.js';
import { CallIdentity, headersOf } from './call-identity.js';
import { CALLER_CREDENTIAL, UpstreamTokens } from './upstream-token.js';
import { PerUserToken } from './per-user-token.js';
import { PerUserSessions } from './per-user-sessions.js';
import type { UserConnections } from '../connections/user-connections.js';
import { UpstreamServer, type CallContext, type LinkHandlers, type UpstreamLink } from './upstream-server.js';

/** How long closing a session waits for the server's answer to its DELETE. */
const END_SESSION_MS = 3000;
/** Network failures before a request was sent at all (no connection was made). */
const NOT_CONNECTED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);
const NETWORK_FAILURES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH']);

function splitUrl(url: string): { origin: string; path: string } {
  const parsed = new URL(url);
  return { origin: parsed.origin, path: parsed.pathname + parsed.search };
}

/**
 * A remote Streamable HTTP tool server: one shared MCP session opened by the gateway with the
 * configured `headers` (its credentials). The caller's identity goes on each HTTP request of a
 * call as X-User-* headers (and the signature): the SDK transport takes a custom fetch, and the
 * headers of each call reach it tagged on the call's JSON-RPC id (CallIdentity), so concurrent
 * callers on the shared session each send their own; a session's own connection (a link) sends
 * its caller's on everything else it sends too. Nothing of the caller's request (credential,
 * headers) is ever copied.
 */
export class RemoteServer extends UpstreamServer {
  readonly kind = 'remote' as const;
  readonly secrets: string[];
  override readonly readsCaller: boolean;
  /** Hands a caller's identity headers to the one request of theirs the client is sending. */
  private readonly callIdentity = new CallIdentity();
  private readonly send: FetchLike;
  /** The connection pool to the server (the SDK client's session and relayed sessions share it). */
  readonly agent = new Agent({ keepAliveTimeout: 30_000, connections: 128 });
  private readonly configured: [string, string][];
  /** The tokens of auth.upstream client_credentials, token_exchange or per_user_oauth (absent for static headers). */
  private readonly tokens?: { secrets: string[]; authorization(): Promise<string | undefined> };

  constructor(
    name: string,
    config: McpServerConfig,
    logger: Logger,
    private readonly forwarding: IdentityForwardingConfig,
    connections?: () => UserConnections | undefined,
    /** One user's own session of a per_user_oauth server (see PerUserSessions). */
    owner?: { owner: string; base: string },
  ) {
    super(name, config, logger);
    const auth = config.auth;
    const tokens =
      !auth || auth.upstream === 'static'
        ? undefined
        : auth.upstream === 'per_user_oauth'
          ? new PerUserToken(name, auth.clientSecret, connections ?? (() => undefined), owner)
          : new UpstreamTokens(name, auth, logger);
    this.tokens = tokens;
    // client_credentials sends the gateway's own token: only these two read the caller's.
    this.readsCaller = auth?.upstream === 'token_exchange' || auth?.upstream === 'per_user_oauth';
    if (tokens instanceof PerUserToken && !owner)
      this.perUser = new PerUserSessions(
        name,
        (who, base) => new RemoteServer(name, config, logger, forwarding, connections, { owner: who, base }),
        () => tokens.authorization(),
      );
    // Its headers, the query values of its URL (`?token=...`), and its client secret and own tokens (kept up to date by UpstreamTokens).
    this.secrets = tokens ? tokens.secrets : [];
    this.secrets.push(...Object.values(config.headers ?? {}), ...secretQueryValues(config.url ?? ''));
    const configured = Object.entries(config.headers ?? {});
    this.configured = configured;
    this.send = undiciFetch(this.agent);
  }

  /**
   * The fetch of one transport: the configured headers, then the caller's identity (computed by
   * the gateway, it wins over a configured header of the same name): the tagged call's, else the
   * link's caller's (`identity`: a session's own connection), then the server's token.
   */
  private fetchFor(tags: Map<string, Record<string, string>>, identity?: Identity): FetchLike {
    return async (url, init) => {
      const headers = new Headers(init?.headers);
      for (const [k, v] of this.configured) headers.set(k, v);
      const caller = headersOf(init, tags) ?? (identity ? identityHeaders(identity, this.forwarding) : undefined);
      if (caller) for (const [k, v] of Object.entries(caller)) headers.set(k, v);
      const authorization = this.tokens && (await this.tokens.authorization());
      if (authorization) headers.set('authorization', authorization);
      return this.send(url, { ...init, headers });
    };
  }

  /** per_user_oauth: each caller's own session, while the server refuses the gateway's own. */
  private readonly perUser?: PerUserSessions;

  /** The caller's own session serves them when the gateway's own one is not up (per_user_oauth). */
  private ownSession(): boolean {
    return this.perUser !== undefined && this.status !== 'ready' && CALLER_CREDENTIAL.getStore()?.owner !== undefined;
  }

  override capabilitiesFor(): ServerCapabilities | undefined | Promise<ServerCapabilities | undefined> {
    if (this.ownSession()) return this.perUser!.forCaller().then((session) => session.capabilities);
    return this.capabilities;
  }

  /** Set when the server speaks the stateless revision (2026-07-28) only: requests go without the SDK client. */
  private stateless?: StatelessClient;
  private listening?: AbortController;

  protected override async connectWithoutHandshake(): Promise<boolean> {
    const client = new StatelessClient(this.config.url!, this.agent);
    if (!(await client.discover(await this.ownHeaders(), Math.min(this.timeoutMs, 30_000)))) return false;
    this.stateless = client;
    this.listen();
    return true;
  }

  private configuredHeaders(): Record<string, string> {
    return Object.fromEntries(this.configured.map(([k, v]) => [k.toLowerCase(), v]));
  }

  /** The headers of the gateway's own requests (no caller): the configured ones and its own token. */
  private async ownHeaders(): Promise<Record<string, string>> {
    const headers = this.configuredHeaders();
    const authorization = this.tokens && (await CALLER_CREDENTIAL.exit(() => this.tokens!.authorization()));
    if (authorization) headers.authorization = authorization;
    return headers;
  }

  /** List changes of a stateless server come on a subscriptions/listen stream, reopened while the server is up. */
  private listen(): void {
    if (this.listening) return;
    const controller = (this.listening = new AbortController());
    void (async () => {
      while (!this.stopping && !controller.signal.aborted) {
        try {
          await this.stateless?.listen(await this.ownHeaders(), controller.signal, (kind) => this.emit('list_changed', kind));
        } catch {
          // The stream broke: opened again after a pause.
        }
        await new Promise((r) => setTimeout(r, 1000).unref());
      }
    })();
  }

  override get protocolVersion(): string | undefined {
    return this.stateless ? STATELESS_VERSION : undefined;
  }

  override get capabilities(): ServerCapabilities | undefined {
    if (!this.stateless) return super.capabilities;
    return this.status === 'ready' ? this.stateless.capabilities : undefined;
  }

  override get serverInfo(): { name: string; version: string; title?: string } | undefined {
    if (!this.stateless) return super.serverInfo;
    return this.status === 'ready' ? this.stateless.serverInfo : undefined;
  }

  override get instructions(): string | undefined {
    return this.stateless ? this.stateless.instructions : super.instructions;
  }

  /** A stateless server keeps no sessions: every request of every client goes on its own. */
  override async openLink(handlers: LinkHandlers): Promise<UpstreamLink | undefined> {
    if (this.stateless) return undefined;
    return super.openLink(handlers);
  }

  override async request(method: string, params: Record<string, unknown> | undefined, ctx: CallContext, retried = false): Promise<Record<string, unknown>> {
    if (this.ownSession()) return (await this.perUser!.forCaller()).request(method, params, ctx, retried);
    if (!this.stateless) return super.request(method, params, ctx, retried);
    if (this.status !== 'ready') await this.whenReady(ctx.signal);
    const client = this.stateless;
    if (this.status !== 'ready') throw new RpcFailure(RPC.SERVER_UNAVAILABLE, `Tool server ${this.name} is unavailable.`);
    const meta: Record<string, unknown> = { ...(ctx.meta ?? {}) };
    delete meta[IDENTITY_META_KEY];
    delete meta.progressToken;
    const session = ctx.session;
    const onprogress = ctx.onprogress;
    const related = ctx.relatedRequestId;
    const call: StatelessCall = {
      method,
      params: { ...(params ?? {}) },
      meta,
      headers: await this.upstreamHeaders(ctx.identity),
      clientCapabilities: ctx.modern?.clientCapabilities ?? session?.clientCapabilities?.() ?? {},
      logLevel: ctx.modern ? ctx.modern.logLevel : session?.logLevel?.(),
      signal: ctx.signal,
      timeoutMs: ctx.timeoutMs ?? this.timeoutMs,
      onprogress: onprogress && ((p) => onprogress(redactRelayed(p, this.secrets) as Progress)),
      onlog: session?.notify ? (m) => session.notify!(this, redactRelayed(m, this.secrets), related) : undefined,
      ask: !ctx.modern && session?.ask ? (req) => session.ask!(req, related, ctx.signal) : undefined,
      modern: ctx.modern !== undefined,
    };
    try {
      return redactRelayed(await client.request(call), this.secrets);
    } catch (err) {
      // Nothing reached the server: the call waits for the reconnection, as the calls after it do, and goes once more.
      if (!(err instanceof StreamableHTTPError) && (await this.reconnected(err, !retried, ctx.signal))) return this.request(method, params, ctx, true);
      throw upstreamFailure(this.name, err, this.secrets);
    }
  }

  protected createTransport(identity?: Identity): Transport {
    const tags = new Map<string, Record<string, string>>();
    const transport = new StreamableHTTPClientTransport(new URL(this.config.url!), {
      fetch: this.fetchFor(tags, identity),
      reconnectionOptions: { initialReconnectionDelay: 1000, maxReconnectionDelay: 30_000, reconnectionDelayGrowFactor: 2, maxRetries: 5 },
    });
    this.callIdentity.tag(transport, tags);
    return transport;
  }

  get url(): string {
    return this.config.url!;
  }

  private target?: { origin: string; path: string };

  /** The origin of the server's URL (`http://host:port`), for requests sent on its connection pool. */
  get origin(): string {
    return (this.target ??= splitUrl(this.url)).origin;
  }

  /** The path of the server's URL, with its query. */
  get path(): string {
    return (this.target ??= splitUrl(this.url)).path;
  }

  /** The headers a relayed request carries to the server: the configured ones, then the caller's identity. */
  relayHeaders(identity: Identity, computed?: Record<string, string>): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [k, v] of this.configured) out[k.toLowerCase()] = v;
    const values = computed ?? identityHeaders(identity, this.forwarding);
    for (const k in values) out[k.toLowerCase()] = values[k]!;
    return out;
  }

  /**
   * The headers a relayed request carries: relayHeaders, and the token of auth.upstream for the
   * caller being served (exchanged for theirs) or for the gateway. Fails with the JSON-RPC error
   * of a token that could not be had.
   */
  async upstreamHeaders(identity: Identity, computed?: Record<string, string>): Promise<Record<string, string>> {
    const headers = this.relayHeaders(identity, computed);
    const authorization = this.tokens && (await this.tokens.authorization());
    if (authorization) headers.authorization = authorization;
    return headers;
  }

  /**
   * The server answered 401 to a request sent with the caller's own token (auth.upstream
   * per_user_oauth): that token is refreshed before the next call. False for other kinds of auth.
   */
  async tokenRefused(): Promise<boolean> {
    if (!(this.tokens instanceof PerUserToken)) return false;
    await this.tokens.refused().catch((err: Error) => this.logger.warn({ mcpServer: this.name, err: err.message }, 'a refused user token could not be marked'));
    return true;
  }

  /** The gateway's own session with the server (for callers that keep none), once connected. */
  get sharedSession(): { sessionId?: string; protocolVersion?: string } | undefined {
    const transport = this.client?.transport as StreamableHTTPClientTransport | undefined;
    if (this.status !== 'ready' || !transport) return undefined;
    return { sessionId: transport.sessionId, protocolVersion: transport.protocolVersion };
  }

  /** A server of the stateless revision has no connection to break: it is unreachable, and reconnects. */
  protected override broken(): void {
    if (this.stateless) this.lostWithoutHandshake();
    else super.broken();
  }

  /**
   * Opens a new shared session now: the server forgot ours (`forgotten`, the id it answered 404
   * for), unless another request has replaced that one already.
   */
  async renewSharedSession(forgotten?: string): Promise<void> {
    const shared = this.sharedSession;
    if (forgotten !== undefined && shared && shared.sessionId !== forgotten) return;
    await this.reopenNow();
  }

  protected identityMeta(): undefined {
    return undefined;
  }

  protected withIdentity<T>(identity: Identity, fn: () => Promise<T>): Promise<T> {
    const headers = identityHeaders(identity, this.forwarding);
    // Nothing to attach: an anonymous caller, or identity forwarding off.
    return Object.keys(headers).length > 0 ? this.callIdentity.run(headers, fn) : fn();
  }

  /**
   * DELETE with the session's Mcp-Session-Id, as the Streamable HTTP transport specifies for a
   * client that ends its session (a server that does not allow it answers 405, which is fine).
   * Waited for at most END_SESSION_MS: a server that does not answer does not hold up the close.
   */
  protected override async endSession(client: Client): Promise<void> {
    const transport = client.transport as StreamableHTTPClientTransport | undefined;
    if (!(transport instanceof StreamableHTTPClientTransport) || !transport.sessionId) return;
    // A link's DELETE carries its caller's identity (its transport's own).
    const ending = transport
      .terminateSession()
      .catch((err: Error) => this.logger.debug({ mcpServer: this.name, err: this.redact(err.message) }, 'tool server session not ended with DELETE'));
    let timer: NodeJS.Timeout | undefined;
    const bounded = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, Math.min(this.timeoutMs, END_SESSION_MS));
      timer.unref();
    });
    await Promise.race([ending, bounded]);
    clearTimeout(timer);
  }

  override async close(): Promise<void> {
    this.listening?.abort();
    await this.perUser?.close();
    await super.close();
    await this.agent.close().catch(() => undefined);
  }

  protected override isSessionLost(err: unknown): boolean {
    return err instanceof StreamableHTTPError && err.code === 404;
  }

  protected override neverSent(err: unknown): boolean {
    return !(err instanceof StreamableHTTPError) && NOT_CONNECTED.has(String((err as { code?: unknown })?.code ?? ''));
  }

  protected override isConnectionFailure(err: unknown): boolean {
    // The server forgot our session (404) or cannot be reached at all: open a new session.
    if (err instanceof StreamableHTTPError) return err.code === 404;
    const code = String((err as { code?: unknown })?.code ?? '');
    return NETWORK_FAILURES.has(code) || (code.startsWith('UND_ERR') && code !== 'UND_ERR_ABORTED');
  }
}
