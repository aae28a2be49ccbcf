import { randomUUID } from 'node:crypto';
import type { Logger } from '../../../kernel/observability/logger.js';
import { RPC, RpcFailure } from '../rpc-errors.js';
import { otherRequest, unknownState, type InputRounds, type Round, type RoundSink } from './input-rounds.js';
import type { BusMessage, SessionBus } from './session-bus.js';

/** How long the instance a retry came to waits for the round's instance to take it; without an answer the round is gone. */
const ACK_MS = 3000;
/** While it serves a retry that came through another instance, the round's instance says it is there this often... */
const ALIVE_MS = 5000;
/** ...and is taken for gone when it has said nothing for this long. */
const GONE_MS = 15_000;

const cancelled = () => new RpcFailure(RPC.SERVER_UNAVAILABLE, 'The request was cancelled: the client closed it.');

/** A retry passed to the round's instance, waiting here (where the client's HTTP request is) for what comes back. */
interface Waiting {
  sink: RoundSink;
  acked: boolean;
  timer?: NodeJS.Timeout;
  resolve(result: Record<string, unknown>): void;
  reject(err: Error): void;
}

/** What the retry asks the round's instance: the caller, its request, and the answers. */
interface Retry {
  owner: string;
  method: string;
  target: string;
  inputResponses?: unknown;
}

/**
 * Input rounds (2026-07-28 `requestState`) on any instance: a retry that comes to an instance
 * other than the one running its round (its sealed `requestState` names that one) is passed to
 * it over the session bus; the round goes on there, and what it says back (progress and log
 * messages of the call, then its next answer: the result, an error, or the next
 * `input_required`) comes back and is answered to the client here. The client closing its
 * request cancels the round, as it would on the round's own instance. No answer from that
 * instance: the round is gone (Unknown or expired requestState).
 */
export class RoundRelay {
  /** Retries held here for rounds of other instances, by relay id. */
  private readonly waiting = new Map<string, Waiting>();
  /** Retries of other instances this one serves, by relay id. */
  private readonly serving = new Map<string, AbortController>();

  constructor(
    private readonly rounds: InputRounds,
    private readonly logger: Logger,
    private readonly bus?: SessionBus,
  ) {
    if (bus) bus.onRound = (message) => this.fromBus(message);
  }

  /** The bus address of the instance running the round of `state`, when that is another one. */
  elsewhere(state: string): string | undefined {
    if (!this.bus?.active || this.rounds.has(state)) return undefined;
    const sealed = this.rounds.sealed(state);
    return sealed?.b && sealed.b !== this.bus.address ? sealed.b : undefined;
  }

  /** Passes a retry to the round's instance; resolves with the round's next answer (what comes before it goes to `sink`). */
  forward(state: string, retry: Retry, sink: RoundSink, signal?: AbortSignal): Promise<Record<string, unknown>> {
    const bus = this.bus!;
    const sealed = this.rounds.sealed(state);
    if (!sealed?.b || sealed.o !== retry.owner) return Promise.reject(unknownState());
    const method = sealed.m ?? '';
    if (sealed.s !== `${retry.method} ${retry.target}`) return Promise.reject(otherRequest(method, sealed.s.slice(method.length + 1)));
    const to = sealed.b;
    const rid = randomUUID();
    return new Promise((resolve, reject) => {
      const cancel = () => {
        this.settle(rid);
        bus.publish({ kind: 'round', sid: state, to, op: 'cancel', rid, messages: [] });
        reject(cancelled());
      };
      const waiting: Waiting = {
        sink,
        acked: false,
        resolve: (result) => {
          signal?.removeEventListener('abort', cancel);
          resolve(result);
        },
        reject: (err) => {
          signal?.removeEventListener('abort', cancel);
          reject(err);
        },
      };
      if (signal?.aborted) return reject(cancelled());
      signal?.addEventListener('abort', cancel, { once: true });
      this.waiting.set(rid, waiting);
      this.arm(rid, waiting, ACK_MS);
      bus.publish({ kind: 'round', sid: state, to, op: 'resume', rid, reply: bus.address, messages: [retry as unknown as Record<string, unknown>] });
    });
  }

  private arm(rid: string, waiting: Waiting, ms: number): void {
    clearTimeout(waiting.timer);
    waiting.timer = setTimeout(() => {
      this.settle(rid);
      if (!waiting.acked) return waiting.reject(unknownState());
      this.logger.warn({}, 'the instance running an MCP input round stopped answering');
      waiting.reject(new RpcFailure(RPC.SERVER_UNAVAILABLE, 'The gateway instance running this request stopped answering: send the request again without requestState.'));
    }, ms);
    waiting.timer.unref();
  }

  private settle(rid: string): Waiting | undefined {
    const waiting = this.waiting.get(rid);
    if (!waiting) return undefined;
    this.waiting.delete(rid);
    clearTimeout(waiting.timer);
    return waiting;
  }

  private fromBus(message: BusMessage): void {
    const rid = message.rid;
    if (!rid) return;
    if (message.op === 'resume') return this.serve(message, rid);
    if (message.op === 'cancel') return this.serving.get(rid)?.abort();
    const waiting = this.waiting.get(rid);
    if (!waiting) return;
    switch (message.op) {
      case 'ack':
        waiting.acked = true;
        return this.arm(rid, waiting, GONE_MS);
      case 'alive':
        return this.arm(rid, waiting, GONE_MS);
      case 'out':
        this.arm(rid, waiting, GONE_MS);
        for (const m of message.messages) {
          if (m.progress && typeof m.progress === 'object') waiting.sink.progress(m.progress as Record<string, unknown>);
          else if (m.log && typeof m.log === 'object') waiting.sink.log(m.log as { method: string; params?: Record<string, unknown> });
        }
        return;
      case 'done':
        this.settle(rid);
        return waiting.resolve(message.messages[0] ?? {});
      case 'error': {
        this.settle(rid);
        const e = message.messages[0] ?? {};
        return waiting.reject(new RpcFailure(typeof e.code === 'number' ? e.code : RPC.INTERNAL_ERROR, String(e.message ?? 'The request failed.'), e.data));
      }
    }
  }

  /** The round's instance: a retry that came through another instance goes on here; what it says goes back there. */
  private serve(message: BusMessage, rid: string): void {
    const bus = this.bus!;
    const reply = message.reply;
    const retry = message.messages[0] as unknown as Retry | undefined;
    if (!reply || !retry || typeof retry.owner !== 'string') return;
    const send = (op: string, messages: Array<Record<string, unknown>> = []) => bus.publish({ kind: 'round', sid: message.sid, to: reply, op, rid, messages });
    let round: Round;
    try {
      round = this.rounds.resume(message.sid, retry.owner, retry.method, retry.target, retry.inputResponses);
    } catch (err) {
      return send('error', [this.failure(err)]);
    }
    send('ack');
    const controller = new AbortController();
    this.serving.set(rid, controller);
    const alive = setInterval(() => send('alive'), ALIVE_MS);
    alive.unref();
    const sink: RoundSink = {
      progress: (progress) => send('out', [{ progress }]),
      log: (log) => send('out', [{ log }]),
    };
    this.rounds
      .serve(round, sink, controller.signal)
      .then(
        (result) => send('done', [result]),
        (err: unknown) => send('error', [this.failure(err)]),
      )
      .finally(() => {
        clearInterval(alive);
        this.serving.delete(rid);
      });
  }

  /** An error as the client gets it (the gateway's own errors as they are; anything else, a generic one). */
  private failure(err: unknown): Record<string, unknown> {
    if (err instanceof RpcFailure) return { code: err.code, message: err.message, ...(err.data === undefined ? {} : { data: err.data }) };
    this.logger.error({ err: (err as Error)?.message }, 'mcp request failed');
    return { code: RPC.INTERNAL_ERROR, message: 'The gateway hit an unexpected error.' };
  }

  /** Shutting down: retries held here end with an error; those served here stop with their rounds. */
  close(): void {
    for (const rid of [...this.waiting.keys()]) {
      this.settle(rid)?.reject(new RpcFailure(RPC.SERVER_UNAVAILABLE, 'The gateway is shutting down.'));
    }
    for (const controller of this.serving.values()) controller.abort();
  }
}
