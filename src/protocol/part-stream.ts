import type { StreamPart } from './stream-parts.js';

/**
 * The parts of a stream as they come off the upstream, grouped by arriving chunk. Iterating it
 * gives one part at a time (what wrappers such as the cache and guardrails use); the HTTP edge
 * takes `batches()` when nothing wrapped it, and writes each group in one socket write.
 */
export class PartStream implements AsyncIterable<StreamPart> {
  constructor(private readonly source: AsyncIterable<StreamPart[]>) {}

  batches(): AsyncIterable<StreamPart[]> {
    return this.source;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<StreamPart> {
    for await (const batch of this.source) yield* batch;
  }
}
