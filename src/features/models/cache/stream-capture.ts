import { OpenAIChunkWriter } from '../../../contract/openai/chunk-writer.js';
import type { StreamPart } from '../../../contract/stream-parts.js';
import type { StreamFormat } from '../../../contract/stream-format.js';
import { MAX_CACHED_BYTES } from './cache-store.js';

/** OpenAI's own formats are cached as the chunk texts the caller received; the others as their parts. */
function chunkFormat(format: StreamFormat): format is 'chat' | 'text' {
  return format === 'chat' || format === 'text';
}

/**
 * Passes a stream through unchanged while recording what the caller receives (OpenAI chunk
 * texts, or the parts themselves for the Anthropic and Responses formats, whose writers keep
 * state across parts); when the upstream says the answer is complete, hands the record to
 * `store`. A stream that fails, is abandoned or grows past the size bound is not stored.
 */
export async function* captureStream(parts: AsyncIterable<StreamPart>, format: StreamFormat, includeUsage: boolean, store: (chunks: string[]) => void): AsyncGenerator<StreamPart> {
  const writer = chunkFormat(format) ? new OpenAIChunkWriter(format, includeUsage) : undefined;
  const chunks: string[] = [];
  let size = 0;
  for await (const part of parts) {
    if (size <= MAX_CACHED_BYTES) {
      if (!writer) {
        if (part.type !== 'done') {
          const data = JSON.stringify(part);
          chunks.push(data);
          size += data.length;
        }
      } else {
        for (const event of writer.write(part).split('\n\n')) {
          if (!event.startsWith('data: ')) continue;
          const data = event.slice(6);
          if (data === '[DONE]') continue;
          chunks.push(data);
          size += data.length;
        }
      }
    }
    if (part.type === 'done' && size <= MAX_CACHED_BYTES) store(chunks);
    yield part;
  }
}

/** A cached stream, replayed: already-written chunks, or the recorded parts. */
export async function* replayChunks(chunks: string[], format: StreamFormat = 'chat'): AsyncGenerator<StreamPart> {
  if (chunkFormat(format)) for (const data of chunks) yield { type: 'chunk', data };
  else for (const data of chunks) yield JSON.parse(data) as StreamPart;
  yield { type: 'done' };
}
