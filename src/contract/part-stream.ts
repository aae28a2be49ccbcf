import type { StreamPart } from './stream-parts.js';

/**
 * The parts of a stream as they come off the upstream, grouped by arriving chunk, with the
 * first group already read (the forward stage waits for it so that a failure before the first
 * byte can still fall back). Iterating it gives one part at a time (what wrappers such as the
 * cache and guardrails use); the HTTP edge takes `batches()` when nothing wrapped it.
 */
export class PartStream implements AsyncIterable<StreamPart> {
  constructor(
    private readonly first: StreamPart[] | undefined,
    private readonly rest: AsyncIterator<StreamPart[]>,
  ) {}

  batches(): AsyncIterable<StreamPart[]> {
    let first = this.first;
    const rest = this.rest;
    return {
      [Symbol.asyncIterator]: () => ({
        next: (): Promise<IteratorResult<StreamPart[]>> => {
          if (first) {
            const value = first;
            first = undefined;
            return Promise.resolve({ value, done: false });
          }
          return rest.next();
        },
        return: async (): Promise<IteratorResult<StreamPart[]>> => {
          await rest.return?.();
          return { value: undefined, done: true };
        },
      }),
    };
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<StreamPart> {
    for await (const batch of this.batches()) yield* batch;
  }
}
