import { randomBytes } from 'node:crypto';
import type { ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import type { Identity } from '../../../kernel/engine/context.js';
import type { Logger } from '../../../kernel/observability/logger.js';
import { RpcFailure } from '../rpc-errors.js';
import type { SessionBus } from './session-bus.js';
import type { SealedSession, SessionSeal } from './session-seal.js';
import type { LinkProvider, UpstreamLink, UpstreamServer } from '../upstream/upstream-server.js';

/** Client capabilities that let a tool server ask the client something. */
export const ASKING_CAPABILITIES = ['sampling', 'elicitation', 'roots'] as const;
/** How long a round waits for the client's next request (a person may be answering). */
const ROUND_TTL_MS = 10 * 60_000;
const STATE_PREFIX = 'gw.';
/** What a sealed value starts with (a sealed requestState is STATE_PREFIX and the rest of it). */
const SEALED_PREFIX = 'r.';
/** A finished round's connection waits this long for the next round of the same kind. */
const IDLE_MS = 30_000;
/** Connections parked per caller, server, capabilities and log level. */
const IDLE_PER_KEY = 4;

type Message = { method: string; params?: Record<string, unknown> };

/** Where the messages of a round go while an HTTP request of the client waits on it. */
export interface RoundSink {
  /** A progress notification of the call (the sink knows the current request's progress token). */
  progress(progress: Record<string, unknown>): void;
  /** A log message of the call (only when the current request asked for logs). */
  log(message: Message): void;
}

interface Asked {
  key: string;
  request: Message;
  resolve: (result: Record<string, unknown>) => void;
  reject: (err: Error) => void;
}

/** A requestState no instance runs a round of for this caller (never was, ended, or expired). */
export const unknownState = () => new RpcFailure(-32602, 'Unknown or expired requestState: send the request again without it.');
/** A requestState retried with another request than the one it belongs to. */
export const otherRequest = (method: string, target: string) => new RpcFailure(-32602, `The requestState belongs to ${method} of ${target}: retry that request with it.`);

export function canBeAsked(capabilities: unknown): capabilities is ClientCapabilities {
  if (!capabilities || typeof capabilities !== 'object') return false;
  const caps = capabilities as Record<string, unknown>;
  return ASKING_CAPABILITIES.some((k) => caps[k] !== undefined && caps[k] !== null);
}

/**
 * One request of a 2026-07-28 client served by a tool server of an earlier revision, across
 * rounds: the request runs on a connection of its own to the server, on which the client's
 * declared capabilities are the gateway's; when the server asks the client something
 * (elicitation, sampling, roots), the client's HTTP request is answered with an
 * `input_required` result (the server's requests under keys, and this round's `requestState`),
 * and the client's retry (`inputResponses` and `requestState`) answers the server's requests;
 * the call then goes on, to its result or to the next questions.
 */
class Round implements LinkProvider {
  readonly controller = new AbortController();
  private link?: Promise<UpstreamLink | undefined>;
  private server?: UpstreamServer;
  private route?: Route;
  private broken = false;
  private readonly asked = new Map<string, Asked>();
  /** Keys already sent to the client (asked again when a retry leaves one unanswered). */
  private counter = 0;
  private done?: { ok: true; value: Record<string, unknown> } | { ok: false; error: unknown };
  private wake?: () => void;
  sink?: RoundSink;
  timer?: NodeJS.Timeout;

  constructor(
    /** Its `requestState`. */
    readonly id: string,
    readonly owner: string,
    readonly method: string,
    readonly target: string,
    private readonly identity: Identity,
    private readonly capabilities: ClientCapabilities,
    private readonly level: string | undefined,
    /** Names a server's logger as the client sees it (S__<logger> on /mcp). */
    private readonly loggerName: ((server: string, logger: string) => string) | undefined,
    private readonly logger: Logger,
    private readonly pool: LinkPool,
  ) {}

  start(run: (session: LinkProvider, signal: AbortSignal) => Promise<Record<string, unknown>>): void {
    run(this, this.controller.signal).then(
      (value) => this.settle({ ok: true, value }),
      (error: unknown) => this.settle({ ok: false, error }),
    );
  }

  private settle(done: NonNullable<Round['done']>): void {
    this.done = done;
    this.wake?.();
  }

  linkFor(server: UpstreamServer): Promise<UpstreamLink | undefined> {
    this.server = server;
    this.link ??= this.openLink(server);
    return this.link;
  }

  dropLink(_server: UpstreamServer, link: UpstreamLink): void {
    this.broken = true;
    void link.close();
  }

  /** Connections kept for the next round of the same caller, server, capabilities and log level. */
  get poolKey(): string {
    return `${this.server?.name}\n${this.owner}\n${JSON.stringify(this.capabilities)}\n${this.level ?? ''}`;
  }

  private async openLink(server: UpstreamServer): Promise<UpstreamLink | undefined> {
    const parked = this.pool.take(this.poolKey);
    if (parked) {
      parked.route.round = this;
      return parked.link;
    }
    const route: Route = { round: this };
    const link = await server.openLink({
      capabilities: this.capabilities,
      identity: this.identity,
      onRequest: (request, signal) => {
        if (!route.round) return Promise.reject(new Error('no request of the client is in progress'));
        return route.round.question(request, signal);
      },
      onNotification: (message) => route.round?.notify(server, message),
      onClose: () => undefined,
    });
    this.route = route;
    if (link && this.level && server.capabilities?.logging) {
      await server.linkRequest(link, this.identity, 'logging/setLevel', { level: this.level }).catch(() => undefined);
    }
    return link;
  }

  /** Logs only when the request asked for them (its logLevel); list changes and the like belong to subscriptions/listen. */
  notify(server: UpstreamServer, message: Message): void {
    if (message.method !== 'notifications/message' || !this.level) return;
    const params = message.params ?? {};
    const named = this.loggerName ? { ...params, logger: typeof params.logger === 'string' && params.logger ? this.loggerName(server.name, params.logger) : server.name } : params;
    this.sink?.log({ method: message.method, params: named });
  }

  /** The server asks the client: the question waits for the client's next round. */
  question(request: Message, signal: AbortSignal): Promise<Record<string, unknown>> {
    return new Promise((resolve, reject) => {
      const key = `${request.method.replace(/[^A-Za-z0-9]+/g, '_')}_${++this.counter}`;
      this.asked.set(key, { key, request, resolve, reject });
      // The server gave up on its question (its own timeout, or it was cancelled).
      signal.addEventListener(
        'abort',
        () => {
          this.asked.delete(key);
          reject(new Error('cancelled by the tool server'));
        },
        { once: true },
      );
      this.wake?.();
    });
  }

  /** The client's answers of a retry, by key; keys the round does not know are ignored. */
  answer(responses: unknown): void {
    if (!responses || typeof responses !== 'object' || Array.isArray(responses)) return;
    for (const [key, value] of Object.entries(responses as Record<string, unknown>)) {
      const asked = this.asked.get(key);
      if (!asked || !value || typeof value !== 'object' || Array.isArray(value)) continue;
      this.asked.delete(key);
      asked.resolve(value as Record<string, unknown>);
    }
  }

  /** The round's next answer to the client: the call's result, or what the server asks. */
  async next(): Promise<{ result: Record<string, unknown>; final: boolean }> {
    for (;;) {
      if (this.done) {
        if (this.done.ok) return { result: this.done.value, final: true };
        throw this.done.error;
      }
      if (this.asked.size) {
        // Questions the server asks together go to the client together.
        await new Promise((r) => setImmediate(r));
        if (this.done) continue;
        const inputRequests: Record<string, Message> = {};
        for (const a of this.asked.values()) inputRequests[a.key] = { method: a.request.method, ...(a.request.params ? { params: a.request.params } : {}) };
        return { result: { resultType: 'input_required', inputRequests, requestState: this.id }, final: false };
      }
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = undefined;
    }
  }

  /** The round ends: the server's open questions fail, the call stops; its connection waits for the next round, or ends. */
  async end(reason: string): Promise<void> {
    clearTimeout(this.timer);
    const clean = this.done?.ok === true && this.asked.size === 0 && !this.broken;
    for (const a of this.asked.values()) a.reject(new Error(reason));
    this.asked.clear();
    if (!this.done) this.controller.abort(new Error(reason));
    const link = await this.link?.catch(() => undefined);
    if (this.route) this.route.round = undefined;
    if (link && clean && this.route && !link.closed && link.inflight.length === 0) this.pool.park(this.poolKey, { link, route: this.route });
    else await link?.close();
    this.logger.debug({ round: this.id.slice(0, 10), reason }, 'mcp input round ended');
  }
}

/** Which round a pooled connection's messages go to (none while it is parked). */
interface Route {
  round?: Round;
}

/** Connections of finished rounds, kept a little while for the next round of the same kind. */
class LinkPool {
  private readonly idle = new Map<string, Array<{ link: UpstreamLink; route: Route; timer: NodeJS.Timeout }>>();
  private closed = false;

  take(key: string): { link: UpstreamLink; route: Route } | undefined {
    const list = this.idle.get(key);
    while (list?.length) {
      const entry = list.pop()!;
      clearTimeout(entry.timer);
      if (!list.length) this.idle.delete(key);
      if (!entry.link.closed) return entry;
    }
    return undefined;
  }

  park(key: string, entry: { link: UpstreamLink; route: Route }): void {
    if (this.closed) {
      void entry.link.close();
      return;
    }
    let list = this.idle.get(key);
    if (!list) this.idle.set(key, (list = []));
    if (list.length >= IDLE_PER_KEY) {
      void entry.link.close();
      return;
    }
    const parked = { ...entry, timer: setTimeout(() => this.expire(key, parked), IDLE_MS) };
    parked.timer.unref();
    list.push(parked);
  }

  private expire(key: string, entry: { link: UpstreamLink }): void {
    const list = this.idle.get(key);
    const i = list?.findIndex((e) => e.link === entry.link) ?? -1;
    if (list && i >= 0) list.splice(i, 1);
    if (list && !list.length) this.idle.delete(key);
    void entry.link.close();
  }

  close(): void {
    this.closed = true;
    for (const [key, list] of [...this.idle]) for (const e of [...list]) this.expire(key, e);
  }
}

/**
 * Multi-round-trip requests (2026-07-28) for tool servers of earlier revisions, whose way of
 * asking is a request to the client: the open rounds of this instance, by `requestState`.
 * A round lives until its call ends or for ROUND_TTL_MS after its last answer.
 *
 * With the session bus (Redis or PostgreSQL), a `requestState` seals (under the key every
 * instance shares) the bus address of the instance running the round, its caller, method and
 * target: a retry that comes to another instance is passed to that one (round-relay.ts).
 */
export class InputRounds {
  private readonly rounds = new Map<string, Round>();

  /** Whether a requestState is one of the gateway's rounds (not a tool server's own). */
  static owns(state: string): boolean {
    return state.startsWith(STATE_PREFIX);
  }

  private readonly pool = new LinkPool();

  constructor(
    private readonly logger: Logger,
    private readonly seal?: SessionSeal,
    private readonly bus?: SessionBus,
  ) {}

  get size(): number {
    return this.rounds.size;
  }

  /** Whether this instance runs the round of a requestState. */
  has(state: string): boolean {
    return this.rounds.has(state);
  }

  /** The round a requestState names, as its seal tells (undefined: not sealed, or not by this deployment's key). */
  sealed(state: string): SealedSession | undefined {
    if (!this.seal || !state.startsWith(STATE_PREFIX)) return undefined;
    const opened = this.seal.open(SEALED_PREFIX + state.slice(STATE_PREFIX.length));
    return opened?.m === undefined ? undefined : opened;
  }

  /** A new round's requestState: sealed with where it runs when other instances may get its retry. */
  private newState(owner: string, method: string, target: string): string {
    if (!this.seal || !this.bus?.active) return STATE_PREFIX + randomBytes(24).toString('base64url');
    // `s` holds a space, which no tool server's name does: the value never passes for a session of one.
    return STATE_PREFIX + this.seal.seal({ s: `${method} ${target}`, o: owner, m: method, b: this.bus.address }).slice(SEALED_PREFIX.length);
  }

  /** Starts a round: `run` makes the request on the round's own connection (the LinkProvider it gets). */
  begin(
    owner: string,
    method: string,
    target: string,
    identity: Identity,
    capabilities: ClientCapabilities,
    logLevel: string | undefined,
    loggerName: ((server: string, logger: string) => string) | undefined,
    run: (session: LinkProvider, signal: AbortSignal) => Promise<Record<string, unknown>>,
  ): Round {
    const round = new Round(this.newState(owner, method, target), owner, method, target, identity, capabilities, logLevel, loggerName, this.logger, this.pool);
    this.rounds.set(round.id, round);
    round.start(run);
    this.touch(round);
    return round;
  }

  /** The round a retry continues: the same caller, method and target, its answers given. */
  resume(state: string, owner: string, method: string, target: string, inputResponses: unknown): Round {
    const round = this.rounds.get(state);
    if (!round || round.owner !== owner) throw unknownState();
    if (round.method !== method || round.target !== target) throw otherRequest(round.method, round.target);
    round.answer(inputResponses);
    this.touch(round);
    return round;
  }

  /** Serves one HTTP request of the client on a round: its answer, and the round kept or ended. */
  async serve(round: Round, sink: RoundSink, signal?: AbortSignal): Promise<Record<string, unknown>> {
    round.sink = sink;
    // The client went away before this round's answer: nobody can continue it (closing the stream cancels).
    const gone = () => this.finish(round, 'cancelled: the client closed its request');
    signal?.addEventListener('abort', gone, { once: true });
    try {
      const { result, final } = await round.next();
      if (final) this.finish(round, 'completed');
      else this.touch(round);
      return result;
    } catch (err) {
      this.finish(round, 'failed');
      throw err;
    } finally {
      signal?.removeEventListener('abort', gone);
      if (round.sink === sink) round.sink = undefined;
    }
  }

  private touch(round: Round): void {
    clearTimeout(round.timer);
    round.timer = setTimeout(() => this.finish(round, 'expired: the client did not come back'), ROUND_TTL_MS);
    round.timer.unref();
  }

  private finish(round: Round, reason: string): void {
    if (this.rounds.get(round.id) !== round) return;
    this.rounds.delete(round.id);
    void round.end(reason);
  }

  close(): void {
    for (const round of [...this.rounds.values()]) this.finish(round, 'the gateway is shutting down');
    this.pool.close();
  }
}

export type { Round };
