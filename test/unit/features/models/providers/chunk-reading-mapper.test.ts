import { describe, expect, it, vi } from 'vitest';
import fc from 'fast-check';
import type { FramedEvent, StreamMapper } from '../../../../../src/features/models/providers/provider.js';
import type { StreamPart } from '../../../../../src/contract/stream-parts.js';
import { ChunkReader } from '../../../../../src/contract/openai/chunk-reader.js';
import { OPENAI_PASSTHROUGH_STREAM } from '../../../../../src/features/models/providers/openai-compatible/openai-compatible.js';
import { chunkReadingMapper, partList, transformMapper } from '../../../../../src/features/models/providers/shared/stream-mapper.js';

/** Every part a mapper gives for the events, in order (the end's parts last). */
function mapAll(map: StreamMapper, events: FramedEvent[]): StreamPart[] {
  const out: StreamPart[] = [];
  for (const event of events) out.push(...partList(map(event)));
  out.push(...partList(map.end?.()));
  return out;
}

/** The translation both mappers run on what is not a text-only chunk: chunks read, the rest kept. */
function readingTransform(reader: ChunkReader) {
  return (parts: StreamPart[]): StreamPart[] => {
    const out: StreamPart[] = [];
    for (const part of parts) {
      if (part.type === 'chunk') out.push(...reader.read(part.data));
      else out.push(part);
    }
    return out;
  };
}

const anyText = fc.string({ unit: fc.constantFrom('a', ' ', '"', '\\', '\n', 'é', '😀', '\u0001', '}') });

/** An OpenAI chunk's JSON text: mostly text in OpenAI's own spelling, sometimes with a finish, usage, a tool call or another spelling. */
const chunk = fc
  .record({
    content: anyText,
    role: fc.boolean(),
    finish: fc.constantFrom(null, null, null, 'stop'),
    usage: fc.constantFrom(undefined, undefined, null, { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 }),
    tool: fc.constantFrom(false, false, false, true),
    spaced: fc.constantFrom(false, false, false, true),
  })
  .map((c) => {
    const delta: Record<string, unknown> = {};
    if (c.role) delta.role = 'assistant';
    delta.content = c.content;
    if (c.tool) delta.tool_calls = [{ index: 0, id: 'call_1', function: { name: 'f', arguments: '{}' } }];
    const out: Record<string, unknown> = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1700000000, model: 'm' };
    out.choices = [{ index: 0, delta, logprobs: null, finish_reason: c.finish }];
    if (c.usage !== undefined) out.usage = c.usage;
    return JSON.stringify(out, null, c.spaced ? 1 : undefined);
  });

describe('chunkReadingMapper', () => {
  it('gives the same parts as reading every chunk through the translation, whatever the chunks (fast-check)', () => {
    fc.assert(
      fc.property(fc.array(chunk, { maxLength: 12 }), fc.boolean(), (chunks, done) => {
        const events: FramedEvent[] = chunks.map((data) => ({ data }));
        if (done) events.push({ data: '[DONE]' });
        const plainReader = new ChunkReader();
        const fast = chunkReadingMapper(OPENAI_PASSTHROUGH_STREAM.createMapper({} as never), plainReader, readingTransform(plainReader));
        const slowReader = new ChunkReader();
        const slow = transformMapper(OPENAI_PASSTHROUGH_STREAM.createMapper({} as never), readingTransform(slowReader));
        expect(mapAll(fast, events)).toEqual(mapAll(slow, events));
      }),
    );
  });

  it('hands a text-only chunk over as its text part, without the translation or a parse', () => {
    const reader = new ChunkReader();
    const transform = vi.fn(readingTransform(reader));
    const map = chunkReadingMapper(OPENAI_PASSTHROUGH_STREAM.createMapper({} as never), reader, transform);
    const first =
      '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}';
    expect(map({ data: first })).toEqual([{ type: 'meta', id: 'chatcmpl-1', model: 'm', created: 1700000000 }]);
    expect(transform).toHaveBeenCalledTimes(1);
    const parse = vi.spyOn(JSON, 'parse');
    try {
      const text =
        '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"m","choices":[{"index":0,"delta":{"content":"Hi"},"logprobs":null,"finish_reason":null}]}';
      expect(map({ data: text })).toEqual({ type: 'text', choice: 0, text: 'Hi' });
      const empty =
        '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"m","choices":[{"index":0,"delta":{"content":""},"logprobs":null,"finish_reason":null}]}';
      expect(map({ data: empty })).toBeUndefined();
      expect(parse).not.toHaveBeenCalled();
    } finally {
      parse.mockRestore();
    }
    expect(transform).toHaveBeenCalledTimes(1);
  });
});
