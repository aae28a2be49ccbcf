import type { EncodedSink } from '../../../kernel/engine/context.js';
import type { OpenAIPassthrough, PassedChunks } from './upstream-stream.js';

/** PassedChunks.poll: the next upstream read is needed (listen for it). */
export const WAIT = Symbol('wait');
/** PassedChunks.poll: the rest of the stream is parsed and written again (read it with next()). */
export const PARSED = Symbol('parsed');

/** What PassedChunks.poll gives: a chunk or the end, WAIT or PARSED. */
export type PolledChunk = IteratorResult<Buffer> | typeof WAIT | typeof PARSED;

/**
 * Writes a passed-through OpenAI stream to `sink` as a pipe would: each upstream read's whole
 * events go out when the read is in (a microtask after it, see UpstreamChunks.listen), with no
 * promise, generator or iterator step per read. The caller not reading (write() false) holds the
 * next read until drained() (the upstream body pauses once enough is held). From where the scan
 * hands the stream to the parser (PARSED) the rest is pulled with next(), as encoded() reads it.
 * Settles as EncodedStream.pump says; the chunks are told return() whenever the writing stops
 * (the upstream's rest drained or cut, as when encoded() is left).
 */
export function pumpPassed(chunks: PassedChunks, stream: OpenAIPassthrough, sink: EncodedSink): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const stop = (err?: unknown) => {
      void chunks.return();
      if (err === undefined) resolve();
      else reject(err);
    };
    const deliver = (): void => {
      try {
        for (;;) {
          if (sink.closed) return stop();
          const step = chunks.poll();
          if (step === WAIT) return stream.upstreamChunks.listen(deliver);
          if (step === PARSED) return void pullParsed(chunks, stream, sink).then(() => stop(), stop);
          if (step.done) return stop();
          const last = stream.ended;
          const more = sink.write(step.value, last);
          if (last) return stop();
          if (!more) return sink.drained(deliver);
        }
      } catch (err) {
        stop(err);
      }
    };
    deliver();
  });
}

/** The rest of a stream the parser writes again, pulled chunk by chunk (as encoded() is read). */
async function pullParsed(chunks: PassedChunks, stream: OpenAIPassthrough, sink: EncodedSink): Promise<void> {
  for (;;) {
    const step = await chunks.next();
    if (step.done || sink.closed) return;
    const last = stream.ended;
    const more = sink.write(step.value, last);
    if (last) return;
    if (!more) await new Promise<void>((then) => sink.drained(then));
  }
}
