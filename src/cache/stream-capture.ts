import { OpenAIChunkWriter } from '../protocol/openai/chunk-writer.js';
import type { StreamPart } from '../protocol/stream-parts.js';
import { MAX_CACHED_BYTES } from './cache-store.js';

/**
 * Passes a stream through unchanged while recording the chunk texts the caller receives;
 * when the upstream says the answer is complete, hands them to `store`. A stream that fails,
 * is abandoned or grows past the size bound is not stored.
 */
export async function* captureStream(
  parts: AsyncIterable<StreamPart>,
  format: 'chat' | 'text',
  includeUsage: boolean,
  store: (chunks: string[]) => void,
): AsyncGenerator<StreamPart> {
  const writer = new OpenAIChunkWriter(format, includeUsage);
  const chunks: string[] = [];
  let size = 0;
  for await (const part of parts) {
    if (size <= MAX_CACHED_BYTES) {
      for (const event of writer.write(part).split('\n\n')) {
        if (!event.startsWith('data: ')) continue;
        const data = event.slice(6);
        if (data === '[DONE]') continue;
        chunks.push(data);
        size += data.length;
      }
    }
    if (part.type === 'done' && size <= MAX_CACHED_BYTES) store(chunks);
    yield part;
  }
}

/** A cached stream, replayed as already-written chunks. */
export async function* replayChunks(chunks: string[]): AsyncGenerator<StreamPart> {
  for (const data of chunks) yield { type: 'chunk', data };
  yield { type: 'done' };
}
