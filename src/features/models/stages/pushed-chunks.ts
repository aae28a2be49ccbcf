import type { SseScan } from '../../../contract/openai/sse-passthrough.js';
import type { EncodedSink } from '../../../kernel/engine/context.js';
import { pullInto } from '../../../kernel/engine/pull-into.js';
import type { ChunkListener, OpenAIPassthrough } from './upstream-stream.js';

/**
 * An OpenAI passthrough stream pushed into the caller's socket (EncodedStream.pushTo): each
 * upstream read is scanned and written in the turn of the event loop that read it, with no
 * promise, iterator step or async resume per read (what `encoded()` costs, per event for a
 * slow stream). The same bytes and the same ends as `encoded()`: whole events as they came,
 * the answer's end with the last chunk, an error event's failure after the bytes before it.
 * From the first event the scan does not pass as it is, the rest is parsed and written again,
 * pulled (`parsed`) and written from there as it comes.
 *
 * The reading is over at the answer's end, a failure, or the caller gone (`sink.closed`): the
 * upstream is then told whether the answer was whole (its rest drained, else cut).
 */
export class PushedChunks implements ChunkListener {
  private over = false;
  private resolve!: () => void;
  private reject!: (err: unknown) => void;
  private readonly resumeUpstream = () => this.stream.upstreamChunks.resume();

  constructor(
    private readonly stream: OpenAIPassthrough,
    private readonly sink: EncodedSink,
  ) {}

  /** Writes the scan of the reads before (if any), then takes the upstream's reads as they come. */
  start(first: SseScan | undefined): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
      if (first && !this.write(first)) return;
      this.stream.upstreamChunks.listen(this);
    });
  }

  chunk(chunk: Buffer): void {
    if (this.over) return;
    let scan: SseScan;
    try {
      scan = this.stream.sseScanner.scan(chunk);
    } catch (err) {
      this.fail(err);
      return;
    }
    this.write(scan);
  }

  /** The body ended before the answer's end: what is left of it is parsed (which ends the answer, or finds it cut). */
  end(): void {
    if (!this.over) this.pull(this.stream.sseScanner.leftover());
  }

  fail(err: unknown): void {
    if (this.over) return;
    this.close();
    this.reject(this.stream.passOptions.fail(err));
  }

  /** Writes what a scan passes; false once the reading is over or handed to the parser. */
  private write(scan: SseScan): boolean {
    const { stream, sink } = this;
    if (sink.closed()) {
      this.close();
      this.resolve();
      return false;
    }
    try {
      if (scan.out) {
        const out = stream.takeScan(scan)!;
        if (stream.ended) {
          sink.write(out, true);
          this.close();
          this.resolve();
          return false;
        }
        if (!sink.write(out, false)) this.waitForSink();
      }
      // An error event after the bytes before it: the upstream failed there.
      if (scan.error !== undefined) stream.failWith(scan.error);
      if (scan.rest) {
        this.pull(scan.rest);
        return false;
      }
    } catch (err) {
      this.fail(err);
      return false;
    }
    return true;
  }

  /** The caller's socket is full: the upstream body paused until it drains. */
  private waitForSink(): void {
    this.stream.upstreamChunks.pause();
    this.sink.onDrain(this.resumeUpstream);
  }

  /** From `rest` on (or the body's end), the stream is parsed and written again, pulled. */
  private pull(rest: Buffer | undefined): void {
    const upstream = this.stream.upstreamChunks;
    upstream.listen(undefined);
    void this.pump(this.stream.parsed(upstream.from(rest ? [rest] : [])));
  }

  /** The parsed rest written as it comes (pullInto: the generator told to stop when the caller is gone). */
  private async pump(parsed: AsyncGenerator<Buffer>): Promise<void> {
    try {
      await pullInto(parsed, () => this.stream.ended, this.sink);
    } catch (err) {
      this.fail(err);
      return;
    }
    this.close();
    this.resolve();
  }

  /** Reading is over: the upstream told whether the answer was whole (its rest drained or cut). */
  private close(): void {
    if (this.over) return;
    this.over = true;
    this.stream.upstreamChunks.finish(this.stream.ended);
  }
}
