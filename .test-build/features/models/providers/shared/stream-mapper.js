/** The parts of one mapper result as a list. */
export function partList(out) {
    return out === undefined ? [] : Array.isArray(out) ? out : [out];
}
/**
 * A mapper whose parts pass through `transform` (a translation of a provider's chat stream
 * into another operation's parts); the inner mapper's end-of-stream parts go through it too.
 */
export function transformMapper(inner, transform) {
    const mapper = (event) => {
        const parts = partList(inner(event));
        return parts.length ? transform(parts) : undefined;
    };
    if (inner.end) {
        const end = inner.end;
        mapper.end = () => {
            const parts = end() ?? [];
            return parts.length ? transform(parts) : undefined;
        };
    }
    return mapper;
}
//# sourceMappingURL=stream-mapper.js.map