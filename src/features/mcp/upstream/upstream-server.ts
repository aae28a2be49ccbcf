import { EventEmitter } from 'node:events';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  ErrorCode,
  McpError,
  type ClientCapabilities,
  type JSONRPCMessage,
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ResultSchema,
  ToolListChangedNotificationSchema,
  type Progress,
  type ServerCapabilities,
} from '@modelcontextprotocol/sdk/types.js';
import type { Identity } from '../../../kernel/engine/context.js';
import type { McpServerConfig } from '../../../generated/gateway.js';
import type { Logger } from '../../../kernel/observability/logger.js';
import { RpcFailure, RPC } from '../rpc-errors.js';
import { upstreamFailure } from './upstream-failure.js';
import { redactRelayed, redactSecrets } from '../../../kernel/errors/redact.js';
import { IDENTITY_META_KEY } from '../../auth/index.js';

export type ListKind = 'tools' | 'prompts' | 'resources';
export type UpstreamStatus = 'starting' | 'ready' | 'down' | 'stopped';

/** One request made on behalf of a caller. */
export interface CallContext {
  identity: Identity;
  /** The caller's `_meta` (gateway-reserved keys are dropped). */
  meta?: Record<string, unknown>;
  signal?: AbortSignal;
  onprogress?: (progress: Progress) => void;
  /**
   * The caller's session, when it has connections of its own to tool servers (see
   * session-links.ts): the request goes on its connection to this server, not the shared one.
   */
  session?: LinkProvider;
  /** The caller's JSON-RPC id of the request this one serves (what the server says in its course goes with it). */
  relatedRequestId?: string | number;
  /** Instead of the server's timeout (a request that waits for a person's answer). */
  timeoutMs?: number;
  /**
   * A 2026-07-28 client: its capabilities and log level (its request's `_meta`); a server's
   * `input_required` result reaches it as it is (a client of an earlier revision is asked instead).
   */
  modern?: { clientCapabilities: ClientCapabilities; logLevel?: string };
}

/** A connection to a tool server that belongs to one client session (its own upstream session or process). */
export interface UpstreamLink {
  readonly client: Client;
  /** The caller's requests in flight on this connection, oldest first (their JSON-RPC ids). */
  readonly inflight: Array<string | number>;
  /** Resolves once every message relayed to the caller so far has been written. */
  flushed(): Promise<void>;
  /** Infinity while the server waits for the client's answer to one of its requests, else when it last got one (ms). */
  answeredAt(): number;
  /** When the server last sent a notification on this connection (log messages, ...; ms, 0 for never). */
  heardAt(): number;
  readonly closed: boolean;
  close(): Promise<void>;
}

/** What a client session offers: its own connection to a server, or undefined (the shared one serves). */
export interface LinkProvider {
  linkFor(server: UpstreamServer): Promise<UpstreamLink | undefined>;
  /** The connection broke (the server forgot its session, or ended): the next linkFor opens a new one. */
  dropLink(server: UpstreamServer, link: UpstreamLink): void;
  /** The client's capabilities (declared to a server of a revision without the handshake, on every request). */
  clientCapabilities?(): ClientCapabilities | undefined;
  /** The session's log level (sent with every request to a server of a revision without the handshake). */
  logLevel?(): string | undefined;
  /** Asks the client what a server asked (a server's input_required result, for a client of the handshake era). */
  ask?(request: { method: string; params?: Record<string, unknown> }, relatedRequestId: string | number | undefined, signal?: AbortSignal): Promise<Record<string, unknown>>;
  /** A notification of `server` in the course of a request of the client (log messages). */
  notify?(server: UpstreamServer, message: { method: string; params?: Record<string, unknown> }, relatedRequestId?: string | number): void;
}

/** How a session's own connection hands on what the tool server says to the client. */
export interface LinkHandlers {
  /** The client's capabilities, declared to the tool server as the gateway's own. */
  capabilities: ClientCapabilities;
  identity: Identity;
  /** A request of the tool server to the client (sampling, elicitation, roots, ...): its answer or a thrown error. */
  onRequest(request: { method: string; params?: Record<string, unknown> }, signal: AbortSignal): Promise<Record<string, unknown>>;
  /** A notification of the tool server (progress and cancellation excepted), delivered in order with the answers. */
  onNotification(notification: { method: string; params?: Record<string, unknown> }): void;
  onClose(): void;
}

export const GATEWAY_VERSION = '0.1.0';

/**
 * The SDK client hands a progress notification to its handler a microtask later, but settles
 * the request at once when its answer arrives: a progress notification written just before the
 * answer (the last one, typically) found its handler already gone and was lost. Here progress
 * notifications reach the client's progress handling as they arrive, in order with the answers
 * (the request's onprogress, and its timeout reset, as before).
 */
function deliverProgressInOrder(client: Client, notify?: (message: { method: string; params?: Record<string, unknown> }) => void): void {
  const transport = client.transport;
  const protocol = client as unknown as { _onprogress?: (n: unknown) => void };
  const original = transport?.onmessage;
  if (!transport || !original || typeof protocol._onprogress !== 'function') return;
  transport.onmessage = (message: JSONRPCMessage, extra) => {
    const method = (message as { method?: unknown }).method;
    if (typeof method === 'string' && !('id' in message)) {
      if (method === 'notifications/progress') {
        protocol._onprogress!.call(client, message);
        return;
      }
      // A session's own connection: the server's other notifications (log messages, resource
      // updates, list changes) go to its client at once, before any answer that follows them.
      if (notify && method !== 'notifications/cancelled') {
        notify(message as { method: string; params?: Record<string, unknown> });
        return;
      }
    }
    original.call(transport, message, extra);
  };
}
const DEFAULT_TIMEOUT_MS = 60_000;
/** The SDK's own timeout, when the gateway keeps the time itself (the largest a timer takes). */
const NO_SDK_TIMEOUT_MS = 2 ** 31 - 1;

/**
 * A request's timeout on a session's own connection: `ms` without word from the server, not
 * counting the time the server waits for the client's answer to one of its requests (it starts
 * again from that answer). Progress and the server's notifications (log messages) restart it too.
 */
function timeoutPausedWhileAsking(link: UpstreamLink, ms: number, outer?: AbortSignal): { signal: AbortSignal; progressed(): void; stop(): void } {
  const controller = new AbortController();
  const onAbort = () => controller.abort(outer!.reason);
  if (outer?.aborted) controller.abort(outer.reason);
  else outer?.addEventListener('abort', onAbort, { once: true });
  let deadline = Date.now() + ms;
  let timer: NodeJS.Timeout;
  const check = () => {
    const answered = link.answeredAt();
    if (answered === Infinity) {
      timer = setTimeout(check, ms);
      return;
    }
    // Word from the server (a log message of the call, say) starts the wait again too.
    deadline = Math.max(deadline, answered + ms, link.heardAt() + ms);
    const left = deadline - Date.now();
    if (left > 0) timer = setTimeout(check, left);
    else controller.abort(new McpError(ErrorCode.RequestTimeout, 'Request timed out'));
  };
  timer = setTimeout(check, ms);
  return {
    signal: controller.signal,
    progressed: () => {
      deadline = Date.now() + ms;
    },
    stop: () => {
      clearTimeout(timer);
      outer?.removeEventListener('abort', onAbort);
    },
  };
}
/** How long a call waits for a server that is still starting or reconnecting (mcpServers.<name>.startTimeout). */
const DEFAULT_START_TIMEOUT_MS = 10_000;
const BACKOFF_FIRST_MS = 500;
const BACKOFF_MAX_MS = 30_000;
/** Up this long, a server's restart count starts again from the first delay. */
const STABLE_AFTER_MS = 60_000;

/**
 * A tool server the gateway connects to once and shares between callers (an SDK Client over a
 * transport). Subclasses make the transport; this class connects, reconnects with backoff
 * when the connection ends, relays list-changed notifications ('list_changed' events) and
 * sends requests for callers. Events: 'list_changed' (kind), 'status' (status).
 */
export abstract class UpstreamServer extends EventEmitter {
  status: UpstreamStatus = 'starting';
  protected client?: Client;
  private attempts = 0;
  private connectedAt = 0;
  private retryTimer?: NodeJS.Timeout;
  private connecting?: Promise<void>;
  /** The transport of a connection still being opened (closed at once on shutdown). */
  private opening?: Transport;
  protected stopping = false;
  /** Set once the gateway drains: a server that ends is not restarted. */
  private draining = false;
  readonly timeoutMs: number;
  readonly startTimeoutMs: number;

  constructor(
    readonly name: string,
    protected readonly config: McpServerConfig,
    protected readonly logger: Logger,
  ) {
    super();
    this.timeoutMs = config.timeout ?? DEFAULT_TIMEOUT_MS;
    this.startTimeoutMs = config.startTimeout ?? DEFAULT_START_TIMEOUT_MS;
  }

  abstract readonly kind: 'process' | 'remote';
  /** A fresh transport for one connection; a session's own connection (a link) passes its caller, whose identity it carries (remote servers). */
  protected abstract createTransport(identity?: Identity): Transport;
  /** Values that must never reach a caller or a log line (configured headers, env values). */
  abstract readonly secrets: string[];
  /**
   * Whether the server reads the caller of the request being served (CALLER_CREDENTIAL: the
   * caller's token for token_exchange, who they are for per_user_oauth). Only then does the
   * endpoint open that scope around a request (an AsyncLocalStorage on Node 20 turns on promise
   * hooks for the whole process once it is first entered: every promise of every route pays).
   */
  readonly readsCaller: boolean = false;
  /** The `_meta` identity entry (process servers) — remote servers get headers instead. */
  protected abstract identityMeta(identity: Identity): Record<string, string> | undefined;
  /**
   * Runs `fn`, which sends one request to the server before it returns (the SDK client hands its
   * message to the transport synchronously), with the caller's identity attached to that request
   * (remote servers).
   */
  protected abstract withIdentity<T>(identity: Identity, fn: () => Promise<T>): Promise<T>;

  get capabilities(): ServerCapabilities | undefined {
    return this.status === 'ready' ? this.client?.getServerCapabilities() : undefined;
  }

  /**
   * The capabilities that apply to the caller being served (a server may open each caller a
   * session of their own: then a promise; otherwise known at once, with nothing awaited).
   */
  capabilitiesFor(): ServerCapabilities | undefined | Promise<ServerCapabilities | undefined> {
    return this.capabilities;
  }

  /** The server's own name and version (from its initialize answer), once connected. */
  get serverInfo(): { name: string; version: string; title?: string } | undefined {
    return this.status === 'ready' ? this.client?.getServerVersion() : undefined;
  }

  get instructions(): string | undefined {
    return this.client?.getInstructions();
  }

  /** First connection; resolves once it succeeded or failed (a failure is retried in the background). */
  start(): Promise<void> {
    return this.connect();
  }

  private connect(): Promise<void> {
    if (this.connecting) return this.connecting;
    this.connecting = this.open().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private async open(): Promise<void> {
    if (this.stopping) return;
    const client = new Client({ name: 'ai-gateway', version: GATEWAY_VERSION }, { capabilities: {} });
    for (const [schema, kind] of [
      [ToolListChangedNotificationSchema, 'tools'],
      [PromptListChangedNotificationSchema, 'prompts'],
      [ResourceListChangedNotificationSchema, 'resources'],
    ] as const) {
      client.setNotificationHandler(schema, () => {
        if (this.client === client) this.emit('list_changed', kind);
      });
    }
    client.onerror = (err) => this.logger.debug({ mcpServer: this.name, err: this.redact(err.message) }, 'tool server transport error');
    client.onclose = () => this.closed(client);
    const transport = this.createTransport();
    this.opening = transport;
    try {
      await client.connect(transport, { timeout: Math.min(this.timeoutMs, 30_000) });
    } catch (err) {
      void client.close().catch(() => undefined);
      if (this.stopping) return;
      // A server of a revision without the handshake (2026-07-28) is served on its own terms.
      if (await this.connectWithoutHandshake().catch(() => false)) {
        if (this.stopping) return;
        this.connectedAt = Date.now();
        this.setStatus('ready');
        this.logger.info({ mcpServer: this.name, kind: this.kind, protocolVersion: this.protocolVersion }, 'tool server connected');
        for (const kind of ['tools', 'prompts', 'resources'] as const) this.emit('list_changed', kind);
        return;
      }
      this.logger.warn({ mcpServer: this.name, err: this.redact((err as Error).message) }, 'tool server did not start');
      this.setStatus('down');
      this.scheduleRetry();
      return;
    } finally {
      this.opening = undefined;
    }
    if (this.stopping) {
      await client.close().catch(() => undefined);
      return;
    }
    deliverProgressInOrder(client);
    this.client = client;
    this.connectedAt = Date.now();
    this.setStatus('ready');
    this.logger.info({ mcpServer: this.name, kind: this.kind }, 'tool server connected');
    for (const kind of ['tools', 'prompts', 'resources'] as const) this.emit('list_changed', kind);
  }

  private closed(client: Client): void {
    if (this.client !== client) return;
    this.client = undefined;
    if (this.stopping) return;
    this.logger.warn({ mcpServer: this.name }, 'tool server connection ended; restarting');
    this.setStatus('down');
    for (const kind of ['tools', 'prompts', 'resources'] as const) this.emit('list_changed', kind);
    this.scheduleRetry();
  }

  /** Marks the connection broken (a network failure on a call) and reconnects. */
  protected broken(): void {
    const client = this.client;
    if (!client) return;
    void client.close().catch(() => undefined);
    this.closed(client);
  }

  /**
   * After a failed handshake: whether the server speaks a revision without one (then it is
   * ready, and `request` serves it without the SDK client). Only remote servers may.
   */
  protected async connectWithoutHandshake(): Promise<boolean> {
    return false;
  }

  /** The revision the server speaks, when it is not one of the handshake era. */
  get protocolVersion(): string | undefined {
    return undefined;
  }

  /** A connection without the handshake failed: the server is down and reconnects with backoff. */
  protected lostWithoutHandshake(): void {
    if (this.stopping || this.status !== 'ready') return;
    this.logger.warn({ mcpServer: this.name }, 'tool server unreachable; reconnecting');
    this.setStatus('down');
    for (const kind of ['tools', 'prompts', 'resources'] as const) this.emit('list_changed', kind);
    this.scheduleRetry();
  }

  private scheduleRetry(): void {
    if (this.stopping || this.draining || this.retryTimer) return;
    if (this.connectedAt && Date.now() - this.connectedAt > STABLE_AFTER_MS) this.attempts = 0;
    const delay = Math.min(BACKOFF_MAX_MS, BACKOFF_FIRST_MS * 2 ** this.attempts);
    this.attempts++;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      void this.connect();
    }, delay);
    this.retryTimer.unref();
  }

  private setStatus(status: UpstreamStatus): void {
    if (this.status === status) return;
    this.status = status;
    this.emit('status', status);
  }

  /** Connections of client sessions to this server open now (see openLink). */
  linkCount = 0;

  /** How many connections of client sessions this server takes (process servers: maxSessions). */
  get linkCapacity(): number {
    return Infinity;
  }

  /**
   * A connection of one client session to this server (a process of its own, or a session of
   * its own with the remote server): the client's capabilities are declared as the gateway's,
   * so the server may ask the client (sampling, elicitation, roots), and what it says (its
   * requests, log messages, resource updates, list changes) goes to that client through
   * `handlers`. Undefined when the server has no room for another, or cannot be reached.
   */
  async openLink(handlers: LinkHandlers): Promise<UpstreamLink | undefined> {
    if (this.stopping || this.linkCount >= this.linkCapacity) return undefined;
    if (this.status !== 'ready' && !(await this.whenReady())) return undefined;
    const client = new Client({ name: 'ai-gateway', version: GATEWAY_VERSION }, { capabilities: handlers.capabilities });
    // Whatever the server asks the client goes to it as it was asked; the client's answer (or error) comes back.
    let asking = 0;
    let answered = 0;
    client.fallbackRequestHandler = async (request, extra) => {
      asking++;
      try {
        return (await handlers.onRequest({ method: request.method, params: request.params as Record<string, unknown> | undefined }, extra.signal)) as never;
      } finally {
        asking--;
        answered = Date.now();
      }
    };
    let closed = false;
    let heard = 0;
    let written: Promise<void> = Promise.resolve();
    const link: UpstreamLink = {
      client,
      inflight: [],
      flushed: () => written,
      answeredAt: () => (asking > 0 ? Infinity : answered),
      heardAt: () => heard,
      // eslint-disable-next-line no-restricted-syntax -- one link per upstream session, not per request
      get closed() {
        return closed;
      },
      close: async () => {
        if (closed) return;
        closed = true;
        // The server is told the session ended (for a remote server: DELETE with its session id).
        await this.endSession(client);
        await client.close().catch(() => undefined);
      },
    };
    this.linkCount++;
    client.onerror = (err) => this.logger.debug({ mcpServer: this.name, err: this.redact(err.message) }, 'tool server session connection error');
    client.onclose = () => {
      if (!closed) closed = true;
      this.linkCount--;
      handlers.onClose();
    };
    const transport = this.createTransport(handlers.identity);
    try {
      await client.connect(transport, { timeout: Math.min(this.timeoutMs, 30_000) });
    } catch (err) {
      this.logger.warn({ mcpServer: this.name, err: this.redact((err as Error).message) }, 'tool server session connection did not open');
      await link.close();
      return undefined;
    }
    deliverProgressInOrder(client, (message) => {
      heard = Date.now();
      const relayed = this.secrets.length ? redactRelayed(message, this.secrets) : message;
      written = written.then(() => handlers.onNotification(relayed)).catch(() => undefined);
    });
    return link;
  }

  /** One request on a session's own connection, outside any call of the client (renewing the session's state). */
  linkRequest(link: UpstreamLink, identity: Identity, method: string, params: Record<string, unknown>): Promise<unknown> {
    return this.withIdentity(identity, () => link.client.request({ method, params } as never, ResultSchema, { timeout: this.timeoutMs }));
  }

  /**
   * Tells the server that the gateway ends one of its sessions with it, before the connection
   * closes (remote servers: the transport's DELETE). Never throws; bounded in time.
   */
  protected async endSession(_client: Client): Promise<void> {}

  /** Text from or about the tool server, with its credentials (and the gateway's) masked. */
  protected redact(text: string): string {
    return redactSecrets(text, this.secrets);
  }

  /**
   * Sends one request for a caller: the caller's `_meta` kept (without gateway-reserved keys),
   * the identity attached (process: `_meta["io.gateway/identity"]`; remote: headers).
   */
  async request(method: string, params: Record<string, unknown> | undefined, ctx: CallContext, retried = false): Promise<Record<string, unknown>> {
    if (this.status !== 'ready' || !this.client) await this.whenReady(ctx.signal);
    // A session with connections of its own uses its own (the shared one when it has none for this server).
    const link = ctx.session ? await ctx.session.linkFor(this) : undefined;
    const client = link ? link.client : this.client;
    if (!link && (this.status !== 'ready' || !client)) throw this.unavailable();
    const meta: Record<string, unknown> = { ...(ctx.meta ?? {}) };
    delete meta[IDENTITY_META_KEY];
    delete meta.progressToken;
    const identity = this.identityMeta(ctx.identity);
    if (identity) meta[IDENTITY_META_KEY] = identity;
    const outParams: Record<string, unknown> = { ...(params ?? {}) };
    if (Object.keys(meta).length) outParams._meta = meta;
    else delete outParams._meta;
    const onprogress = ctx.onprogress;
    const related = ctx.relatedRequestId;
    const timeoutMs = ctx.timeoutMs ?? this.timeoutMs;
    // On a session's own connection the wait stops while the server waits for the client (a person may be answering).
    const guard = link ? timeoutPausedWhileAsking(link, timeoutMs, ctx.signal) : undefined;
    if (link && related !== undefined) link.inflight.push(related);
    try {
      const result = (await this.withIdentity(ctx.identity, () =>
        client!.request({ method, params: outParams } as never, ResultSchema, {
          signal: guard ? guard.signal : ctx.signal,
          timeout: guard ? NO_SDK_TIMEOUT_MS : timeoutMs,
          onprogress:
            onprogress &&
            ((progress: Progress) => {
              guard?.progressed();
              onprogress(redactRelayed(progress, this.secrets));
            }),
          resetTimeoutOnProgress: onprogress !== undefined,
        }),
      )) as Record<string, unknown>;
      // What the server said in the course of this request reaches the client before its answer.
      if (link) await link.flushed();
      // A tool server may echo what it was configured with (an Authorization header, an env value).
      return redactRelayed(result, this.secrets);
    } catch (err) {
      if (link) {
        if (!link.closed && !this.isSessionLost(err) && !this.isConnectionFailure(err)) throw upstreamFailure(this.name, err, this.secrets);
        // The session's own connection is gone (the server forgot it, or ended): a new one serves the retry.
        ctx.session!.dropLink(this, link);
        if (!retried && this.isSessionLost(err)) return this.request(method, params, ctx, true);
        throw upstreamFailure(this.name, err, this.secrets);
      }
      if (!retried && this.isSessionLost(err)) {
        // The server forgot our session (it restarted): open a new one now and try once more.
        await this.reopen(client!);
        return this.request(method, params, ctx, true);
      }
      if (await this.reconnected(err, !retried, ctx.signal)) return this.request(method, params, ctx, true);
      throw upstreamFailure(this.name, err, this.secrets);
    } finally {
      guard?.stop();
      if (link && related !== undefined) {
        const i = link.inflight.lastIndexOf(related);
        if (i >= 0) link.inflight.splice(i, 1);
      }
    }
  }

  /** What a call gets when the server is not up (still starting, restarting, or stopped) and did not come up in time. */
  unavailable(): RpcFailure {
    const state = this.status === 'stopped' ? 'stopped' : this.status === 'starting' ? 'starting' : 'restarting';
    return new RpcFailure(RPC.SERVER_UNAVAILABLE, `Tool server ${this.name} is unavailable (${state}).`);
  }

  /**
   * After a request to the server failed with `err`: when the connection is gone, it is marked
   * broken (the server reconnects, with backoff) and, when nothing of the request reached the
   * server (it refused the connection, say: it is restarting) and the request may go `again`,
   * waits for the reconnection (up to startTimeout), as the calls after it do. Resolves with
   * whether the request goes once more. The one rule for every way a call reaches a server: the
   * shared connection's calls here, and the relay's own requests (/mcp/<server>, /mcp's lean calls).
   */
  async reconnected(err: unknown, again: boolean, signal?: AbortSignal): Promise<boolean> {
    if (!this.isConnectionFailure(err)) return false;
    this.broken();
    return again && this.neverSent(err) && (await this.whenReady(signal));
  }

  /** Replaces the current connection at once (the server forgot its session). */
  protected async reopenNow(): Promise<void> {
    if (this.client) await this.reopen(this.client);
    else await this.connect();
  }

  /** Replaces a connection whose session the server no longer knows, without waiting for backoff. */
  private async reopen(client: Client): Promise<void> {
    // Another request may have reopened it already (or be doing so: connect() is shared).
    if (this.client && this.client !== client) return;
    if (this.client === client) {
      this.client = undefined;
      this.setStatus('down');
      void client.close().catch(() => undefined);
    }
    if (this.retryTimer) {
      clearTimeout(this.retryTimer);
      this.retryTimer = undefined;
    }
    await this.connect();
  }

  /** Whether a request failure means the connection is gone (subclasses know their transport). */
  protected isConnectionFailure(_err: unknown): boolean {
    return false;
  }

  /** Whether a request failed before any of it reached the server (the connection was refused): it may go again. */
  protected neverSent(_err: unknown): boolean {
    return false;
  }

  /** Whether the server no longer knows this connection's session (worth one immediate retry). */
  protected isSessionLost(_err: unknown): boolean {
    return false;
  }

  /** No reconnection from now on (shutdown began); the current connection keeps serving until close(). */
  stopRestarts(): void {
    this.stopping = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
  }

  /**
   * Waits (up to startTimeout) for a server that is still starting, or reconnecting after it
   * was up, and resolves with whether it is ready; a server whose first start failed, or that
   * is stopped or draining, answers false at once.
   */
  whenReady(signal?: AbortSignal): Promise<boolean> {
    if (this.status === 'ready') return Promise.resolve(true);
    const coming = this.status === 'starting' || (this.status === 'down' && this.connectedAt > 0);
    if (!coming || this.stopping || this.draining || signal?.aborted) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.off('status', onStatus);
        signal?.removeEventListener('abort', done);
        resolve(this.status === 'ready');
      };
      const onStatus = (status: UpstreamStatus) => {
        if (status === 'ready' || status === 'stopped') done();
      };
      const timer = setTimeout(done, this.startTimeoutMs);
      timer.unref();
      this.on('status', onStatus);
      signal?.addEventListener('abort', done, { once: true });
    });
  }

  /** The gateway is draining: calls in flight go on, but a server that ends stays down. */
  drain(): void {
    this.draining = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
  }

  async close(): Promise<void> {
    this.stopping = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    // A server still starting is not waited for: its transport (process, connection) ends now.
    await this.opening?.close().catch(() => undefined);
    await this.connecting?.catch(() => undefined);
    const client = this.client;
    this.client = undefined;
    this.setStatus('stopped');
    if (client) await this.endSession(client);
    await client?.close().catch(() => undefined);
  }
}
