/**
 * The parts of a stream as they come off the upstream, grouped by arriving chunk, with the
 * first group already read (the forward stage waits for it so that a failure before the first
 * byte can still fall back). Iterating it gives one part at a time (what wrappers such as the
 * cache and guardrails use); the HTTP edge takes `batches()` when nothing wrapped it.
 */
export class PartStream {
    first;
    rest;
    constructor(first, rest) {
        this.first = first;
        this.rest = rest;
    }
    batches() {
        let first = this.first;
        const rest = this.rest;
        return {
            [Symbol.asyncIterator]: () => ({
                next: () => {
                    if (first) {
                        const value = first;
                        first = undefined;
                        return Promise.resolve({ value, done: false });
                    }
                    return rest.next();
                },
                return: async () => {
                    await rest.return?.();
                    return { value: undefined, done: true };
                },
            }),
        };
    }
    async *[Symbol.asyncIterator]() {
        for await (const batch of this.batches())
            yield* batch;
    }
}
//# sourceMappingURL=part-stream.js.map