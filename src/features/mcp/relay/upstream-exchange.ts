import { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';

/** What ends an exchange early: the caller's signal (an AbortSignal, or any `once('abort')` emitter). */
export type ExchangeSignal =
  | AbortSignal
  | {
      readonly aborted: boolean;
      readonly reason?: unknown;
      once(event: 'abort', listener: () => void): unknown;
    };

export interface ExchangeRequest {
  /** The server's origin (`http://host:port`) and the path with its query. */
  origin: string;
  path: string;
  method: string;
  headers: Record<string, string>;
  body: Buffer | undefined;
  headersTimeout: number;
  signal?: ExchangeSignal;
}

/**
 * The tool server's answer: its status and headers, then either the whole body (`body`;
 * `broken` when the server broke it off) or, for an event stream, a stream of it (`stream`,
 * passed on as it comes; destroying it ends the exchange).
 */
export interface ExchangeAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body?: Buffer;
  broken?: boolean;
  stream?: Readable;
}

class AbortedError extends Error {
  readonly code = 'UND_ERR_ABORTED';
  constructor(reason: unknown) {
    super('The request was aborted.', { cause: reason });
    this.name = 'AbortError';
  }
}

function isEventStream(headers: Record<string, string | string[] | undefined>): boolean {
  const type = headers['content-type'];
  return typeof type === 'string' && type.includes('text/event-stream');
}

/**
 * One HTTP request to a tool server on undici's dispatch API, with no more than the relay
 * needs: no URL parsing, no AbortController, no body stream for a whole JSON answer (its
 * chunks are kept and joined once). Settles when the answer is known: at its end for a whole
 * answer, at its headers for an event stream. Rejects when no answer came (connection refused,
 * headers timeout, the caller went away first).
 */
class Exchange implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | undefined;
  private answer: ExchangeAnswer | undefined;
  private chunks: Buffer[] = [];
  private size = 0;
  private settled = false;
  private ended = false;
  /** Why the exchange was ended before undici started it (it is aborted as soon as it starts). */
  private reason: Error | undefined;

  constructor(
    private readonly resolve: (answer: ExchangeAnswer) => void,
    private readonly reject: (err: Error) => void,
    signal: ExchangeSignal | undefined,
  ) {
    if (!signal) return;
    const onAbort = () => {
      if (!this.ended) this.abort(new AbortedError(signal.reason));
    };
    if ('addEventListener' in signal) signal.addEventListener('abort', onAbort, { once: true });
    else signal.once('abort', onAbort);
  }

  private abort(err: Error): void {
    if (this.controller) return this.controller.abort(err);
    this.reason = err;
    this.onResponseError(undefined, err);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.reason) controller.abort(this.reason);
  }

  onResponseStart(controller: Dispatcher.DispatchController, status: number, headers: Record<string, string | string[] | undefined>): void {
    // 1xx answers (103 Early Hints) come before the real one.
    if (status < 200) return;
    const answer: ExchangeAnswer = { status, headers };
    this.answer = answer;
    if (!isEventStream(headers)) return;
    answer.stream = new Readable({
      read: () => controller.resume(),
      destroy: (err, done) => {
        if (!this.ended) {
          this.ended = true;
          controller.abort(err ?? new AbortedError(undefined));
        }
        done(err);
      },
    });
    this.settle(answer);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    const stream = this.answer?.stream;
    if (stream) {
      if (!stream.push(chunk)) controller.pause();
      return;
    }
    this.chunks.push(chunk);
    this.size += chunk.length;
  }

  onResponseEnd(): void {
    this.ended = true;
    const answer = this.answer;
    if (!answer) return;
    if (answer.stream) {
      answer.stream.push(null);
      return;
    }
    const chunks = this.chunks;
    answer.body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, this.size);
    this.chunks = [];
    this.settle(answer);
  }

  onResponseError(_controller: Dispatcher.DispatchController | undefined, err: Error): void {
    this.ended = true;
    const answer = this.answer;
    if (answer?.stream) {
      answer.stream.destroy(err);
      return;
    }
    this.chunks = [];
    if (!answer) {
      if (!this.settled) {
        this.settled = true;
        this.reject(err);
      }
      return;
    }
    answer.broken = true;
    this.settle(answer);
  }

  private settle(answer: ExchangeAnswer): void {
    if (this.settled) return;
    this.settled = true;
    this.resolve(answer);
  }
}

/** Sends `request` on `dispatcher` (the server's connection pool) and gets its answer. */
export function exchange(dispatcher: Dispatcher, request: ExchangeRequest): Promise<ExchangeAnswer> {
  return new Promise((resolve, reject) => {
    const signal = request.signal;
    if (signal?.aborted) {
      reject(new AbortedError(signal.reason));
      return;
    }
    const handler = new Exchange(resolve, reject, signal);
    dispatcher.dispatch(
      {
        origin: request.origin,
        path: request.path,
        method: request.method as Dispatcher.HttpMethod,
        headers: request.headers,
        body: request.body,
        headersTimeout: request.headersTimeout,
        bodyTimeout: 0,
      },
      handler,
    );
  });
}

/** `signal` as an AbortSignal (for what takes only one: a wait for the server, a deadline with it). */
export function abortSignalOf(signal: ExchangeSignal): AbortSignal {
  if (signal instanceof AbortSignal) return signal;
  const controller = new AbortController();
  if (signal.aborted) controller.abort(signal.reason);
  else signal.once('abort', () => controller.abort(signal.reason));
  return controller.signal;
}
