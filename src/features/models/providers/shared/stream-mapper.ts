import type { ChunkReader } from '../../../../contract/openai/chunk-reader.js';
import type { StreamPart } from '../../../../contract/stream-parts.js';
import type { FramedEvent, StreamMapper } from '../provider.js';

/** The parts of one mapper result as a list. */
export function partList(out: StreamPart | StreamPart[] | undefined): StreamPart[] {
  return out === undefined ? [] : Array.isArray(out) ? out : [out];
}

/** The inner mapper's end-of-stream parts, through `transform` too, as the mapper's own end. */
function withEnd(mapper: StreamMapper, inner: StreamMapper, transform: (parts: StreamPart[]) => StreamPart[]): StreamMapper {
  const end = inner.end;
  if (end)
    mapper.end = () => {
      const parts = end() ?? [];
      return parts.length ? transform(parts) : undefined;
    };
  return mapper;
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
  return withEnd(mapper, inner, transform);
}

/**
 * transformMapper for a translation of OpenAI chunks (a chat stream read back into parts with
 * `reader`): a chunk that carries only text, most of a stream, becomes its text part at once
 * (no list, no parse; ChunkReader.plainText); any other event's parts go through `transform`,
 * which reads their chunks with the same reader.
 */
export function chunkReadingMapper(inner: StreamMapper, reader: ChunkReader, transform: (parts: StreamPart[]) => StreamPart[]): StreamMapper {
  const mapper: StreamMapper = (event: FramedEvent) => {
    const out = inner(event);
    if (out === undefined) return undefined;
    if (!Array.isArray(out) && out.type === 'chunk') {
      const text = reader.plainText(out.data);
      if (text !== undefined) return text === '' ? undefined : { type: 'text', choice: 0, text };
    }
    const parts = partList(out);
    return parts.length ? transform(parts) : undefined;
  };
  return withEnd(mapper, inner, transform);
}
