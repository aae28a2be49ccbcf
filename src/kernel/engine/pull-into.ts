import type { EncodedSink } from './context.js';

/**
 * A pulled stream of ready-made chunks written into a sink (EncodedStream.pushTo for a source
 * that can only be pulled): `ended()` tells whether the chunk just taken holds the answer's end;
 * the reading stops (the iterator told to return) when the caller is gone.
 */
export async function pullInto(chunks: AsyncIterable<Buffer>, ended: () => boolean, sink: EncodedSink): Promise<void> {
  for await (const chunk of chunks) {
    if (sink.closed()) return;
    const last = ended();
    const more = sink.write(chunk, last);
    if (last) return;
    if (!more) await new Promise<void>((resume) => sink.onDrain(resume));
  }
}
