import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ResultSchema, type ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import type { Identity } from '../../../kernel/engine/context.js';
import type { Logger } from '../../../kernel/observability/logger.js';
import { gatewayUri, prefixedName } from '../naming.js';
import type { SubscriptionSharing } from './subscription-holders.js';
import type { LinkProvider, UpstreamLink, UpstreamServer } from '../upstream/upstream-server.js';

/** Client capabilities that let a tool server ask the client something. */
const ASKING = ['sampling', 'elicitation', 'roots'] as const;
/** How long a tool server's request waits for the client's answer (a person may be answering it). */
const CLIENT_ANSWER_TIMEOUT_MS = 10 * 60_000;

const ignore = () => undefined;

type Message = { method: string; params?: Record<string, unknown> };

/** A change of a session's state on the servers, told to its copies on other instances. */
export interface SharedChange {
  level?: string;
  unsubscribe?: { server: string; uri: string };
}

/**
 * The connections of one aggregated /mcp session to its tool servers. A session starts on the
 * gateway's shared connections; it gets connections of its own (a process of its own for a
 * process server, a session of its own with a remote server, opened on first use of each
 * server) once the session needs state on the servers: its client can be asked something
 * (it declared sampling, elicitation or roots), it set a log level, or it subscribed to a
 * resource. On its own connections the client's capabilities are declared to the server, and
 * whatever the server says goes to this client only: its requests (on the event stream of the
 * client's call in progress, the answer back to the server), log messages (logger `S` or
 * `S__<logger>`), resource updates (URIs `mcpgw://S/...`) and list changes. A server with no room
 * for another connection (process servers: maxSessions) keeps serving the session on the shared one.
 */
export class SessionLinks implements LinkProvider {
  private enabled = false;
  private closed = false;
  private readonly links = new Map<UpstreamServer, Promise<UpstreamLink | undefined>>();
  private level?: string;
  /** A level another copy set, on its way to this copy's connections: requests on them wait for it. */
  private settling?: Promise<void>;
  private readonly subscriptions = new Map<UpstreamServer, Set<string>>();

  constructor(
    private readonly downstream: Server,
    private readonly identity: () => Identity,
    private readonly logger: Logger,
    /** /mcp: servers' loggers and resource URIs are named as the aggregate shows them (S__, mcpgw://S/). */
    private readonly aggregated = true,
    /** Passes a notification for the server stream on when another instance holds that stream (true). */
    private readonly elsewhere?: (message: Message) => boolean,
    /** Tells the session's copies on other instances what this one changed. */
    private readonly share?: (change: SharedChange) => Promise<void> | void,
    /** Where the session's resource subscriptions live (which instance's copy holds each). */
    private readonly sharing?: SubscriptionSharing,
  ) {}

  /** After initialize: a client that can be asked something gets connections of its own. */
  adoptClient(): void {
    const caps = this.downstream.getClientCapabilities() as Record<string, unknown> | undefined;
    if (caps && ASKING.some((k) => caps[k] !== undefined)) this.enabled = true;
  }

  /** The session needs state on its servers from now on (a log level, a subscription). */
  enable(): void {
    this.enabled = true;
  }

  clientCapabilities(): ClientCapabilities | undefined {
    return this.downstream.getClientCapabilities();
  }

  logLevel(): string | undefined {
    return this.level;
  }

  /** What a server asked in an input_required result, asked of the client (on the event stream of its call). */
  ask(request: Message, relatedRequestId: string | number | undefined, signal?: AbortSignal): Promise<Record<string, unknown>> {
    return this.request(request, relatedRequestId, signal);
  }

  /** A log message of a server of a revision without the handshake, in the course of the client's call. */
  notify(server: UpstreamServer, message: Message, relatedRequestId?: string | number): void {
    void this.tell(server, { link: relatedRequestId === undefined ? undefined : { inflight: [relatedRequestId] } }, message);
  }

  linkFor(server: UpstreamServer): Promise<UpstreamLink | undefined> {
    const settling = this.settling;
    if (settling) return settling.then(() => this.linkFor(server));
    if (!this.enabled || this.closed) return Promise.resolve(undefined);
    let pending = this.links.get(server);
    if (!pending) {
      pending = this.open(server);
      const opened = pending;
      this.links.set(server, opened);
      // No room or no connection now: the shared connection serves, and a later request tries again.
      void opened.then((link) => {
        if (!link && this.links.get(server) === opened) this.links.delete(server);
      });
    }
    return pending;
  }

  dropLink(server: UpstreamServer, link: UpstreamLink): void {
    void this.links.get(server)?.then((current) => {
      if (current === link) this.links.delete(server);
    });
    void link.close();
  }

  /**
   * Remembers the level and sets it on every connection opened from now on; settled once the
   * session's copies on other instances can read it (before the client hears the answer).
   */
  async rememberLogLevel(level: string): Promise<void> {
    this.level = level;
    await this.share?.({ level });
  }

  /** Whether this copy of the session holds any resource subscription. */
  holdsSubscriptions(): boolean {
    for (const set of this.subscriptions.values()) if (set.size) return true;
    return false;
  }

  /** Whether this copy of the session holds a subscription (made on its own connection to the server). */
  holds(server: UpstreamServer, uri: string): boolean {
    return this.subscriptions.get(server)?.has(uri) === true;
  }

  /** Remembers a subscription (renewed on a new connection to the server; held by this copy from now on) or forgets it. */
  async rememberSubscription(server: UpstreamServer, uri: string, on: boolean): Promise<void> {
    let set = this.subscriptions.get(server);
    if (on) {
      if (!set) this.subscriptions.set(server, (set = new Set()));
      set.add(uri);
      await this.sharing?.claim(server.name, uri);
    } else if (set?.delete(uri)) {
      await this.sharing?.dropped(server.name, uri);
    }
  }

  /** A subscription this copy does not hold: ended where another instance's copy holds it, if any does. */
  async releaseElsewhere(server: UpstreamServer, uri: string): Promise<void> {
    await this.sharing?.release(server.name, uri);
  }

  /**
   * What another instance's copy of the session changed: the log level (set on this copy's
   * connections too), or a subscription ended or taken over (ended here when this copy holds it).
   */
  async applyShared(change: SharedChange, servers: (name: string) => UpstreamServer | undefined): Promise<void> {
    if (change.level) {
      this.enabled = true;
      const level = (this.level = change.level);
      const settled = Promise.all(
        [...this.links].map(async ([server, pending]) => {
          const link = await pending.catch(() => undefined);
          if (link && server.capabilities?.logging) await server.linkRequest(link, this.identity(), 'logging/setLevel', { level }).catch(() => undefined);
        }),
      ).then(ignore);
      this.settling = settled;
      await settled;
      if (this.settling === settled) this.settling = undefined;
    }
    if (change.unsubscribe) {
      const server = servers(change.unsubscribe.server);
      const set = server && this.subscriptions.get(server);
      if (!server || !set?.delete(change.unsubscribe.uri)) return;
      const link = await this.links.get(server)?.catch(() => undefined);
      if (link) await server.linkRequest(link, this.identity(), 'resources/unsubscribe', { uri: change.unsubscribe.uri }).catch(() => undefined);
    }
  }

  private async open(server: UpstreamServer): Promise<UpstreamLink | undefined> {
    const holder: { link?: UpstreamLink } = {};
    const link = await server.openLink({
      capabilities: this.downstream.getClientCapabilities() ?? {},
      identity: this.identity(),
      onRequest: (request, signal) => this.relay(holder, request, signal),
      onNotification: (message) => this.tell(server, holder, message),
      onClose: () => {
        const current = this.links.get(server);
        void current?.then((l) => {
          if (l === holder.link && this.links.get(server) === current) this.links.delete(server);
        });
      },
    });
    if (!link) return undefined;
    holder.link = link;
    if (this.closed) {
      await link.close();
      return undefined;
    }
    // A new connection is a new session on the server: the session's log level and subscriptions again.
    const identity = this.identity();
    const renew: Array<Promise<unknown>> = [];
    if (this.level && server.capabilities?.logging) renew.push(server.linkRequest(link, identity, 'logging/setLevel', { level: this.level }));
    for (const uri of this.subscriptions.get(server) ?? []) renew.push(server.linkRequest(link, identity, 'resources/subscribe', { uri }));
    for (const result of await Promise.allSettled(renew)) {
      if (result.status === 'rejected') this.logger.debug({ mcpServer: server.name, err: (result.reason as Error)?.message }, 'session state not renewed on a new connection');
    }
    return link;
  }

  /** A request of the tool server to the client, on the event stream of the client's call in progress. */
  private relay(holder: { link?: UpstreamLink }, request: Message, signal: AbortSignal): Promise<Record<string, unknown>> {
    return this.request(request, holder.link?.inflight.at(-1), signal);
  }

  private async request(request: Message, related: string | number | undefined, signal?: AbortSignal): Promise<Record<string, unknown>> {
    return (await this.downstream.request({ method: request.method, params: request.params } as never, ResultSchema, {
      timeout: CLIENT_ANSWER_TIMEOUT_MS,
      ...(signal ? { signal } : {}),
      ...(related === undefined ? {} : { relatedRequestId: related }),
    })) as Record<string, unknown>;
  }

  /** A notification of the tool server to the client, named as the aggregate shows the server's things. */
  private tell(server: UpstreamServer, holder: { link?: Pick<UpstreamLink, 'inflight'> }, message: Message): Promise<void> {
    let params = message.params;
    if (!this.aggregated) {
      // /mcp/<server>: the server's own names.
    } else if (message.method === 'notifications/message' && params) {
      params = { ...params, logger: typeof params.logger === 'string' && params.logger ? prefixedName(server.name, params.logger) : server.name };
    } else if (message.method === 'notifications/resources/updated' && typeof params?.uri === 'string') {
      params = { ...params, uri: gatewayUri(server.name, params.uri) };
    }
    const notification = { method: message.method, ...(params ? { params } : {}) } as never;
    const related = holder.link?.inflight.at(-1);
    if (related === undefined && this.elsewhere?.({ method: message.method, ...(params ? { params } : {}) })) return Promise.resolve();
    const sent =
      related === undefined
        ? this.downstream.notification(notification)
        : this.downstream.notification(notification, { relatedRequestId: related }).catch(() => this.downstream.notification(notification));
    return sent.catch((err: Error) => this.logger.debug({ mcpServer: server.name, method: message.method, err: err.message }, 'relayed notification had nowhere to go'));
  }

  /**
   * The session's copy here ends (or its instance stops): the shared store no longer names it
   * as the holder of its subscriptions (they end with its connections).
   */
  async letGo(): Promise<void> {
    const held: Array<{ server: string; uri: string }> = [];
    for (const [server, uris] of this.subscriptions) for (const uri of uris) held.push({ server: server.name, uri });
    if (held.length) await this.sharing?.abandon(held);
  }

  /** The session ended: its connections end (its processes stop). */
  async close(): Promise<void> {
    void this.letGo();
    this.closed = true;
    const links = [...this.links.values()];
    this.links.clear();
    await Promise.all(links.map(async (p) => (await p.catch(() => undefined))?.close()));
  }
}
