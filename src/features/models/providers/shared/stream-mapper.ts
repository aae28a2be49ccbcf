import type { StreamPart } from '../../../../contract/stream-parts.js';
import type { FramedEvent, StreamMapper } from '../provider.js';

/** The parts of one mapper result as a list. */
export function partList(out: StreamPart | StreamPart[] | undefined): StreamPart[] {
  return out === undefined ? [] : Array.isArray(out) ? out : [out];
}

/**
 * A mapper whose parts pass through `transform` (a translation of a provider's chat stream
 * into another operation's parts); the inner mapper's end-of-stream parts go through it too.
 */
export function transformMapper(inner: StreamMapper, transform: (parts: StreamPart[]) => StreamPart[]): StreamMapper {
  const mapper: StreamMapper = (event: FramedEvent) => {
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
