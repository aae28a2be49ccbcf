import type { Dispatcher } from 'undici';
import { eventFramer, frameEventBatches, type EventFramer, type FramedEvent } from '../../../contract/framing.js';
import { OpenAISseScanner, type SseScan } from '../../../contract/openai/sse-passthrough.js';
import { PartStream } from '../../../contract/part-stream.js';
import type { StreamPart, Usage } from '../../../contract/stream-parts.js';
import { createStreamWriter } from '../../../contract/stream-writer.js';
import type { StreamMapper } from '../providers/provider.js';
import type { AttemptTimers } from '../routing/attempt-timers.js';
import type { EncodedSink } from '../../../kernel/engine/context.js';
import { pullInto } from '../../../kernel/engine/pull-into.js';
import { PushedChunks } from './pushed-chunks.js';

const ignore = () => undefined;

const DONE: IteratorReturnResult<undefined> = Object.freeze({ value: undefined, done: true });
const NO_CHUNKS: readonly Buffer[] = Object.freeze([]);
/** What is drained after a whole answer at most (the rest of the connection's body is then cut). */
const DRAIN_LIMIT = 64 * 1024;

function prematureClose(): Error {
  return Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' });
}

/** Bytes held for the reader before the body is paused (backpressure on the upstream). */
const HOLD_LIMIT = 64 * 1024;

/**
 * The body of one upstream stream: its chunks (the attempt's idle timer watching them), and what
 * becomes of the rest once the answer is read. Read with 'data' events (as a pipe reads) rather
 * than the stream's async iterator (a generator, a promise and end-of-stream bookkeeping per
 * body). The chunks of one socket read (undici hands an HTTP chunk at a time, one per upstream
 * write: an event each for most providers) reach the reader as one Buffer, so that the stream is
 * framed, scanned and written once per read, in one socket write, as a pipe would: the reader
 * waiting is answered a microtask after the first chunk, when the read's other chunks are in.
 * Held bytes beyond HOLD_LIMIT pause the body until the reader takes them. The consumer stops
 * reading at the answer's end: a whole answer's rest is drained (the connection stays alive),
 * a cut one's body destroyed.
 */
export class UpstreamChunks implements AsyncIterator<Buffer> {
  /** The chunks (this reader itself, or wrapped by the attempt's idle timer). */
  readonly chunks: AsyncIterator<Buffer>;
  private readonly held: Buffer[] = [];
  private heldBytes = 0;
  /** The body is paused: for the bytes held (HOLD_LIMIT), or for the caller's socket (push mode's `pause`). */
  private paused = false;
  private sinkFull = false;
  private waiting: { resolve: (step: IteratorResult<Buffer>) => void; reject: (err: unknown) => void } | undefined;
  /** A microtask will hand the held chunks to the reader waiting. */
  private handing = false;
  private ended = false;
  private failure: unknown;
  private drained = -1;
  /** Who takes the chunks as they come (push mode, see listen), instead of a reader waiting. */
  private listener: ChunkListener | undefined;
  private readonly hand = () => this.handOver();

  constructor(
    private readonly body: Dispatcher.ResponseData['body'],
    timers: AttemptTimers,
  ) {
    // `on`, not `once`: each of these events comes once from a stream (and settle counts only the
    // first), and `once` keeps a wrapper, its state and a bound function per listener for the stream's life.
    body.on('data', (chunk: Buffer) => this.onData(chunk));
    body.on('end', () => this.settle(undefined));
    body.on('error', (err: unknown) => this.settle(err ?? prematureClose()));
    body.on('close', () => {
      if (!this.ended && this.failure === undefined) this.settle(prematureClose());
    });
    this.chunks = timers.active ? timers.watch({ [Symbol.asyncIterator]: () => this })[Symbol.asyncIterator]() : this;
  }

  private onData(chunk: Buffer): void {
    if (this.drained >= 0) {
      this.drained += chunk.length;
      if (this.drained > DRAIN_LIMIT) this.body.destroy();
      return;
    }
    this.held.push(chunk);
    this.heldBytes += chunk.length;
    if ((this.waiting || this.listener) && !this.handing) {
      this.handing = true;
      queueMicrotask(this.hand);
    }
    if (this.heldBytes > HOLD_LIMIT && !this.paused) {
      this.paused = true;
      this.body.pause();
    }
  }

  /** The held chunks to the reader waiting (what arrived since it asked). */
  private handOver(): void {
    this.handing = false;
    const listener = this.listener;
    if (listener) {
      if (this.held.length) listener.chunk(this.take());
      // The listener may have stopped listening, or the reading may be over (finish).
      if (this.listener === listener && this.drained < 0) {
        if (this.failure !== undefined) listener.fail(this.failure);
        else if (this.ended) listener.end();
      }
      return;
    }
    const waiting = this.waiting;
    if (!waiting) return;
    this.waiting = undefined;
    if (this.held.length) waiting.resolve({ value: this.take(), done: false });
    else if (this.failure !== undefined) waiting.reject(this.failure);
    else if (this.ended || this.drained >= 0) waiting.resolve(DONE);
    else this.waiting = waiting;
  }

  /** The held chunks as one Buffer; the body resumed if it was paused for them. */
  private take(): Buffer {
    const held = this.held;
    const value = held.length === 1 ? held[0]! : Buffer.concat(held, this.heldBytes);
    held.length = 0;
    this.heldBytes = 0;
    if (this.paused && !this.sinkFull) {
      this.paused = false;
      this.body.resume();
    }
    return value;
  }

  /** The body ended ('end'), failed, or closed before its end (the first of these counts). */
  private settle(failure: unknown): void {
    if (this.ended || this.failure !== undefined) return;
    if (failure === undefined) this.ended = true;
    else this.failure = failure;
    // Chunks already held go first (the microtask handing them over is queued).
    if (this.handing) return;
    const listener = this.listener;
    if (listener) {
      if (failure === undefined) listener.end();
      else listener.fail(failure);
      return;
    }
    const waiting = this.waiting;
    this.waiting = undefined;
    if (!waiting) return;
    if (failure === undefined) waiting.resolve(DONE);
    else waiting.reject(failure);
  }

  /**
   * Push mode: the chunks of each read go to `listener` as they come (one microtask after the
   * first, as `next()` hands them over), then its end or failure; chunks already held go at
   * once. `undefined` goes back to pull mode (what arrives is held for `next()`). Only when no
   * idle timer watches the chunks (`chunks` is this reader itself).
   */
  listen(listener: ChunkListener | undefined): void {
    this.listener = listener;
    if (listener && !this.handing && (this.held.length || this.ended || this.failure !== undefined)) {
      this.handing = true;
      queueMicrotask(this.hand);
    }
  }

  /** Push mode's backpressure: the body paused until `resume()`. */
  pause(): void {
    this.sinkFull = true;
    if (this.paused || this.drained >= 0) return;
    this.paused = true;
    this.body.pause();
  }

  resume(): void {
    this.sinkFull = false;
    if (!this.paused || this.drained >= 0 || this.heldBytes > HOLD_LIMIT) return;
    this.paused = false;
    this.body.resume();
  }

  /** Reading stops at finish(); the body's rest is then the reader's to drain or cut. */
  return(): Promise<IteratorResult<Buffer>> {
    return Promise.resolve(DONE);
  }

  next(): Promise<IteratorResult<Buffer>> {
    if (this.held.length) return Promise.resolve({ value: this.take(), done: false });
    if (this.failure !== undefined) return Promise.reject(this.failure);
    if (this.ended || this.drained >= 0) return Promise.resolve(DONE);
    return new Promise((resolve, reject) => (this.waiting = { resolve, reject }));
  }

  /** `before` (chunks already read), then the rest of the body. */
  from(before: readonly Buffer[]): AsyncIterable<Buffer> {
    const chunks = this.chunks;
    if (!before.length) return { [Symbol.asyncIterator]: () => chunks };
    let i = 0;
    const iterator: AsyncIterator<Buffer> = {
      next: () => (i < before.length ? Promise.resolve({ value: before[i++]!, done: false }) : chunks.next()),
      return: async () => {
        await chunks.return?.();
        return DONE;
      },
    };
    return { [Symbol.asyncIterator]: () => iterator };
  }

  /** Ends the reading: a whole answer's rest is drained (up to DRAIN_LIMIT), a cut one's body destroyed. */
  finish(complete: boolean): void {
    this.listener = undefined;
    void this.chunks.return?.();
    const body = this.body;
    this.held.length = 0;
    this.heldBytes = 0;
    if (this.ended || this.failure !== undefined || body.destroyed) return;
    body.on('error', ignore);
    if (!complete) {
      body.destroy();
      return;
    }
    this.drained = 0;
    this.paused = this.sinkFull = false;
    body.resume();
  }
}

/** What takes an upstream body's chunks in push mode (UpstreamChunks.listen). */
export interface ChunkListener {
  chunk(chunk: Buffer): void;
  end(): void;
  fail(err: unknown): void;
}

/** The parts of one batch of events, and the failure of the event that could not be mapped (the parts before it still count). */
interface MappedBatch {
  parts: StreamPart[];
  failure?: { error: unknown };
}

/**
 * Maps one batch. `state.complete` is set when the parts hold the answer's end, before the
 * batch is handed over: the consumer stops reading there.
 */
function mapBatch(events: readonly FramedEvent[], map: StreamMapper, state: { complete: boolean }): MappedBatch {
  const parts: StreamPart[] = [];
  let failure: MappedBatch['failure'];
  for (const event of events) {
    let out: ReturnType<typeof map>;
    try {
      out = map(event);
    } catch (error) {
      failure = { error };
      break;
    }
    if (out === undefined) continue;
    if (Array.isArray(out)) for (const part of out) parts.push(part);
    else parts.push(out);
  }
  if (holdsDone(parts)) state.complete = true;
  return { parts, failure };
}

function holdsDone(parts: readonly StreamPart[]): boolean {
  for (const part of parts) if (part.type === 'done') return true;
  return false;
}

/** Maps framed events to parts, the parts of each batch together; the parts before a failing event still come first. */
async function* mapEvents(batches: AsyncIterable<FramedEvent[]>, map: StreamMapper, state: { complete: boolean }): AsyncGenerator<StreamPart[]> {
  for await (const events of batches) {
    const { parts, failure } = mapBatch(events, map, state);
    if (parts.length) yield parts;
    if (failure) throw failure.error;
  }
  const tail = tailParts(map, state);
  if (tail) yield tail;
}

/** Parts a provider gives only once its stream ended (e.g. Bedrock without a metadata event); `state.complete` set when they end the answer. */
function tailParts(map: StreamMapper, state: { complete: boolean }): StreamPart[] | undefined {
  const tail = state.complete ? undefined : map.end?.();
  if (!tail?.length) return undefined;
  if (holdsDone(tail)) state.complete = true;
  return tail;
}

/**
 * The parts of a stream over a synchronous framer, as an iterator of its own (no generator per
 * layer, one promise per upstream chunk): each chunk is framed and mapped at once, the end's
 * events and the provider's tail come after the last chunk. A failure (the body's or the
 * mapper's) comes through `fail`, after the parts mapped before it. `finish` is told once, when
 * the reading ends (the answer's end seen or not).
 */
export class FramedParts implements AsyncIterator<StreamPart[]> {
  private readonly state = { complete: false };
  private closed = false;
  /** The failure of an event whose batch's earlier parts went out first. */
  private failure: { error: unknown } | undefined;

  constructor(
    private readonly framer: EventFramer,
    private readonly chunks: AsyncIterator<Buffer>,
    private readonly map: StreamMapper,
    private readonly fail: (err: unknown) => unknown = (err) => err,
    private readonly finish: (complete: boolean) => void = ignore,
  ) {}

  next(): Promise<IteratorResult<StreamPart[]>> {
    if (this.closed) return Promise.resolve(DONE);
    if (this.failure) return Promise.reject(this.close(this.failure.error));
    return this.chunks.next().then(
      (step) => this.take(step),
      (err: unknown) => {
        throw this.close(err);
      },
    );
  }

  private take(step: IteratorResult<Buffer>): IteratorResult<StreamPart[]> | Promise<IteratorResult<StreamPart[]>> {
    if (this.closed) return DONE;
    const ended = step.done === true;
    let parts: StreamPart[];
    try {
      const events = ended ? this.framer.end() : this.framer.push(step.value);
      if (!events.length && !ended) return this.next();
      const batch = mapBatch(events, this.map, this.state);
      parts = batch.parts;
      if (batch.failure) {
        if (!parts.length) throw batch.failure.error;
        this.failure = batch.failure;
        return { value: parts, done: false };
      }
      const tail = ended ? tailParts(this.map, this.state) : undefined;
      if (tail) for (const part of tail) parts.push(part);
    } catch (err) {
      throw this.close(err);
    }
    if (ended) {
      this.close();
      return parts.length ? { value: parts, done: false } : DONE;
    }
    return parts.length ? { value: parts, done: false } : this.next();
  }

  /** Ends the reading (once): the source closed, `finish` told; gives the failure as `fail` maps it. */
  private close(err?: unknown): unknown {
    if (!this.closed) {
      this.closed = true;
      void this.chunks.return?.();
      this.finish(this.state.complete);
    }
    return err === undefined ? undefined : this.fail(err);
  }

  return(): Promise<IteratorResult<StreamPart[]>> {
    this.close();
    return Promise.resolve(DONE);
  }
}

/** The parts of an upstream stream, batch by batch; failures go through `fail` (the attempt's error mapping). */
export function mapStream(upstream: UpstreamChunks, source: AsyncIterable<Buffer>, framing: string, map: StreamMapper, fail: (err: unknown) => Error): AsyncIterator<StreamPart[]> {
  const framer = eventFramer(framing);
  if (framer) return new FramedParts(framer, source[Symbol.asyncIterator](), map, fail, (complete) => upstream.finish(complete));
  return mapAsyncFramed(upstream, source, framing, map, fail);
}

/** The same over a framing that frames asynchronously (a generator per layer). */
async function* mapAsyncFramed(
  upstream: UpstreamChunks,
  source: AsyncIterable<Buffer>,
  framing: string,
  map: StreamMapper,
  fail: (err: unknown) => Error,
): AsyncGenerator<StreamPart[]> {
  const state = { complete: false };
  try {
    yield* mapEvents(frameEventBatches(framing, source), map, state);
  } catch (err) {
    throw fail(err);
  } finally {
    upstream.finish(state.complete);
  }
}

/**
 * Waits for the stream's first parts, so that a failure before the first byte can still fall
 * back; the first part ends the attempt's first_byte_timeout.
 */
export async function primeStream(batches: AsyncIterator<StreamPart[]>, timers: AttemptTimers): Promise<PartStream> {
  const first = await batches.next();
  timers.firstByteArrived();
  return new PartStream(first.done ? undefined : first.value, batches);
}

/** What an OpenAI passthrough stream needs besides its body. */
export interface PassthroughOptions {
  format: 'chat' | 'text';
  includeUsage: boolean;
  /** The gateway asked for usage the caller did not: noted, the usage-only chunk left out. */
  hiddenUsage?: boolean;
  /** The provider's mapper of the same events (the parts, for stages that read them; errors). */
  map: StreamMapper;
  /** The attempt's error mapping. */
  fail: (err: unknown) => Error;
  /** The usage of a whole answer (when asked for). */
  onUsage: (usage: Usage) => void;
}

/**
 * An OpenAI stream from an upstream that speaks OpenAI, passed through as bytes (see
 * contract/openai/sse-passthrough.ts): `encoded()` gives the answer's text chunk by chunk, in
 * the upstream's own bytes, which the HTTP edge writes as they are. A stage that needs the
 * parts (cache, output guardrails, token limits) wraps the stream as an iterable of parts:
 * the same bytes then go through the provider's mapper, as any stream does.
 */
export class OpenAIPassthrough implements AsyncIterable<StreamPart> {
  /** Set once the chunk last handed over by `encoded()` holds the answer's end. */
  ended = false;
  private used = false;

  constructor(
    private readonly upstream: UpstreamChunks,
    private readonly scanner: OpenAISseScanner,
    /** The chunks read so far and the scan of the last one (let go once `encoded()` has them: not held for the stream's life). */
    private seen: readonly Buffer[],
    private first: SseScan | undefined,
    private readonly options: PassthroughOptions,
  ) {}

  private claim(): void {
    if (this.used) throw new Error('the stream was read already');
    this.used = true;
  }

  /**
   * The answer's text: whole events as the upstream sent them, a chunk per upstream read; throws
   * where the upstream failed. An iterator of its own (no generator): one promise per read.
   */
  encoded(): AsyncIterable<Buffer> {
    this.claim();
    const iterator = new PassedChunks(this);
    // The iterator holds the first scan now; the chunks read before it are not read again.
    this.first = undefined;
    this.seen = NO_CHUNKS;
    return { [Symbol.asyncIterator]: () => iterator };
  }

  /**
   * The same chunks pushed into `sink` as each upstream read comes (see PushedChunks): no
   * promise per read. Pulled through `encoded()` when an idle timer watches the chunks.
   */
  pushTo(sink: EncodedSink): Promise<void> {
    if (this.upstream.chunks !== this.upstream) return pullInto(this.encoded(), () => this.ended, sink);
    this.claim();
    const first = this.first;
    this.first = undefined;
    this.seen = NO_CHUNKS;
    return new PushedChunks(this, sink).start(first);
  }

  /** The scan's outcome as the next chunk to hand over: out, the usage noted at the end, or the upstream's failure. */
  takeScan(scan: SseScan): Buffer | undefined {
    if (scan.out && scan.done) {
      this.ended = true;
      if (this.scanner.usage) this.options.onUsage(this.scanner.usage as Usage);
    }
    if (scan.error !== undefined && !scan.out) this.failWith(scan.error);
    return scan.out;
  }

  /** The upstream's error event: mapped by the provider's mapper (which throws its error). */
  failWith(data: string): never {
    this.options.map({ data });
    throw new Error('the upstream stream reported an error');
  }

  get firstScan(): SseScan | undefined {
    return this.first;
  }

  get sseScanner(): OpenAISseScanner {
    return this.scanner;
  }

  get upstreamChunks(): UpstreamChunks {
    return this.upstream;
  }

  get passOptions(): PassthroughOptions {
    return this.options;
  }

  /** The rest of the stream parsed and written again (what the parser reads differently from the bytes). */
  async *parsed(source: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
    const { options, scanner } = this;
    const writer = createStreamWriter(options.format, { includeUsage: options.includeUsage, hiddenUsage: options.hiddenUsage === true });
    const batches = new FramedParts(eventFramer('sse')!, source[Symbol.asyncIterator](), options.map);
    for (;;) {
      const step = await batches.next();
      if (step.done) return;
      let text = '';
      let done = false;
      for (const part of step.value) {
        text += writer.write(part);
        if (part.type === 'done') {
          done = this.ended = true;
          const usage = writer.lastUsage ?? (scanner.usage as Usage | undefined);
          if (usage) options.onUsage(usage);
          break;
        }
      }
      if (done) {
        // The rest of the upstream body is the caller's to drain (finish): the parsers stop here.
        void batches.return();
        if (text) yield Buffer.from(text, 'utf8');
        return;
      }
      if (text) yield Buffer.from(text, 'utf8');
    }
  }

  /** The parts, batch by batch (for the stages that read them): the same bytes through the provider's mapper. */
  batches(): AsyncIterable<StreamPart[]> {
    this.claim();
    const { upstream, options } = this;
    const batches = mapStream(upstream, upstream.from(this.seen), 'sse', options.map, options.fail);
    return { [Symbol.asyncIterator]: () => batches };
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<StreamPart> {
    for await (const batch of this.batches()) yield* batch;
  }
}

/**
 * The chunks `OpenAIPassthrough.encoded()` hands over: per upstream read, its whole events as
 * they came (scanned for the end, an error event and the usage). From the first event the scan
 * does not pass as it is, the rest is parsed and written again (`parsed`). Reading ends at
 * the answer's end, a failure or `return()`: the upstream is then told whether the answer was whole.
 */
class PassedChunks implements AsyncIterator<Buffer> {
  private scan: SseScan | undefined;
  private parsed: AsyncIterator<Buffer> | undefined;
  private over = false;

  constructor(private readonly stream: OpenAIPassthrough) {
    this.scan = stream.firstScan;
  }

  next(): Promise<IteratorResult<Buffer>> {
    if (this.over) return Promise.resolve(DONE);
    if (this.parsed) {
      return this.parsed.next().then(
        (step) => this.settle(step),
        (err: unknown) => {
          throw this.fail(err);
        },
      );
    }
    try {
      const step = this.fromScan();
      if (step) return Promise.resolve(step);
    } catch (err) {
      return Promise.reject(this.fail(err));
    }
    if (this.parsed) return this.next();
    return this.stream.upstreamChunks.chunks.next().then(
      (step) => this.read(step),
      (err: unknown) => {
        throw this.fail(err);
      },
    );
  }

  /** What the current scan hands over (then cleared); undefined when the next upstream read is needed. */
  private fromScan(): IteratorResult<Buffer> | undefined {
    const scan = this.scan;
    if (!scan) return undefined;
    const stream = this.stream;
    if (scan.out) {
      // Its error (if any) comes on the next call, after the bytes before it.
      this.scan =
        scan.error !== undefined
          ? { out: undefined, done: false, error: scan.error, rest: undefined }
          : scan.rest
            ? { out: undefined, done: false, error: undefined, rest: scan.rest }
            : undefined;
      const out = stream.takeScan(scan)!;
      if (stream.ended) this.end();
      return { value: out, done: false };
    }
    this.scan = undefined;
    if (scan.error !== undefined) stream.failWith(scan.error);
    if (scan.rest) return this.startParsed(scan.rest);
    return undefined;
  }

  private read(step: IteratorResult<Buffer>): IteratorResult<Buffer> | Promise<IteratorResult<Buffer>> {
    if (this.over) return DONE;
    try {
      if (step.done) {
        const rest = this.stream.sseScanner.leftover();
        const started = this.startParsed(rest);
        if (started) return started;
        return this.next();
      }
      this.scan = this.stream.sseScanner.scan(step.value);
      const out = this.fromScan();
      return out ?? this.next();
    } catch (err) {
      throw this.fail(err);
    }
  }

  /** From `rest` on (or the body's end), the stream is parsed and written again. */
  private startParsed(rest: Buffer | undefined): undefined {
    const upstream = this.stream.upstreamChunks;
    this.parsed = this.stream.parsed(rest ? upstream.from([rest]) : upstream.from([]));
    return undefined;
  }

  private settle(step: IteratorResult<Buffer>): IteratorResult<Buffer> {
    if (step.done || this.stream.ended) this.end();
    return step;
  }

  private fail(err: unknown): unknown {
    this.end();
    return this.stream.passOptions.fail(err);
  }

  /** Reading is over: the upstream told whether the answer was whole (its rest drained or cut). */
  private end(): void {
    if (this.over) return;
    this.over = true;
    this.stream.upstreamChunks.finish(this.stream.ended);
  }

  return(): Promise<IteratorResult<Buffer>> {
    const parsed = this.parsed;
    this.end();
    if (parsed) void parsed.return?.(undefined).catch(ignore);
    return Promise.resolve(DONE);
  }
}

/**
 * Reads an OpenAI stream's first whole events, so that a failure before the first byte can still
 * fall back (as primeStream does). A stream whose first events the scan does not pass as they
 * are (or that ends before any) is read the usual way from there: as parts (primeStream).
 */
export async function primePassthrough(upstream: UpstreamChunks, timers: AttemptTimers, options: PassthroughOptions): Promise<OpenAIPassthrough | PartStream> {
  const scanner = new OpenAISseScanner(options.includeUsage, options.hiddenUsage === true);
  const seen: Buffer[] = [];
  let scan: SseScan | undefined;
  try {
    for (;;) {
      const step = await upstream.chunks.next();
      if (step.done) break;
      seen.push(step.value);
      scan = scanner.scan(step.value);
      if (scan.rest) break;
      if (scan.error !== undefined && !scan.out) options.map({ data: scan.error });
      if (scan.out || scan.done || scan.error !== undefined) break;
    }
  } catch (err) {
    upstream.finish(false);
    throw options.fail(err);
  }
  if (!scan || scan.rest || !(scan.out || scan.done || scan.error !== undefined)) {
    return primeStream(mapStream(upstream, upstream.from(seen), 'sse', options.map, options.fail), timers);
  }
  timers.firstByteArrived();
  return new OpenAIPassthrough(upstream, scanner, seen, scan, options);
}
