import { describe, expect, it } from 'vitest';
import { OpenAIChunkWriter, sseErrorEvent } from '../../../src/contract/openai/chunk-writer.js';
import type { StreamPart } from '../../../src/contract/stream-parts.js';

/** Runs parts through a writer; returns the SSE text and the parsed chunks (without [DONE]). */
function write(format: 'chat' | 'text', includeUsage: boolean, parts: StreamPart[]) {
  const writer = new OpenAIChunkWriter(format, includeUsage);
  const text = parts.map((p) => writer.write(p)).join('');
  const events = text.split('\n\n').filter(Boolean);
  for (const e of events) expect(e.startsWith('data: ')).toBe(true);
  const chunks = events
    .map((e) => e.slice(6))
    .filter((d) => d !== '[DONE]')
    .map((d) => JSON.parse(d));
  return { text, chunks, writer };
}

const META: StreamPart = { type: 'meta', id: 'chatcmpl-1', model: 'claude-x', created: 1700000000 };

describe('OpenAIChunkWriter (chat)', () => {
  it('writes text chunks exactly as JSON.stringify writes the chunk object, escapes and a changed meta included', () => {
    const tricky = 'quote " backslash \\ newline \n é 😀 \u2028 </script>';
    const writer = new OpenAIChunkWriter('chat', false);
    const meta = (id: string, model: string, created: number): StreamPart => ({ type: 'meta', id, model, created });
    const expected = (id: string, model: string, created: number, choice: number, content: string) =>
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: choice, delta: { content }, logprobs: null, finish_reason: null }], system_fingerprint: null })}\n\n`;
    writer.write(meta('id "1"', 'model\\x', 1700000000));
    writer.write({ type: 'text', choice: 0, text: 'first' });
    writer.write({ type: 'text', choice: 2, text: 'first of choice 2' });
    expect(writer.write({ type: 'text', choice: 0, text: tricky })).toBe(expected('id "1"', 'model\\x', 1700000000, 0, tricky));
    expect(writer.write({ type: 'text', choice: 2, text: '' })).toBe(expected('id "1"', 'model\\x', 1700000000, 2, ''));
    writer.write(meta('id-2', 'other', 1.5));
    expect(writer.write({ type: 'text', choice: 0, text: 'x' })).toBe(expected('id-2', 'other', 1.5, 0, 'x'));
  });

  it('writes each delta as a chat.completion.chunk, the role only in the first delta of a choice', () => {
    const { chunks, text } = write('chat', false, [
      META,
      { type: 'text', choice: 0, text: 'Hel' },
      { type: 'text', choice: 0, text: 'lo' },
      { type: 'finish', choice: 0, reason: 'stop' },
      { type: 'done' },
    ]);
    expect(chunks).toEqual([
      {
        id: 'chatcmpl-1',
        object: 'chat.completion.chunk',
        created: 1700000000,
        model: 'claude-x',
        system_fingerprint: null,
        choices: [{ index: 0, delta: { role: 'assistant', content: 'Hel' }, logprobs: null, finish_reason: null }],
      },
      {
        id: 'chatcmpl-1',
        object: 'chat.completion.chunk',
        created: 1700000000,
        model: 'claude-x',
        system_fingerprint: null,
        choices: [{ index: 0, delta: { content: 'lo' }, logprobs: null, finish_reason: null }],
      },
      {
        id: 'chatcmpl-1',
        object: 'chat.completion.chunk',
        created: 1700000000,
        model: 'claude-x',
        system_fingerprint: null,
        choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' }],
      },
    ]);
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
    expect(text.match(/\[DONE\]/g)).toHaveLength(1);
  });

  it('gives each choice its own role', () => {
    const { chunks } = write('chat', false, [META, { type: 'text', choice: 0, text: 'a' }, { type: 'text', choice: 1, text: 'b' }, { type: 'text', choice: 1, text: 'c' }]);
    expect(chunks.map((c) => c.choices[0].delta)).toEqual([{ role: 'assistant', content: 'a' }, { role: 'assistant', content: 'b' }, { content: 'c' }]);
    expect(chunks.map((c) => c.choices[0].index)).toEqual([0, 1, 1]);
  });

  it('keeps the tool-call rules: id, type and name in the first delta of a call; then only index and argument text', () => {
    const { chunks } = write('chat', false, [
      META,
      { type: 'tool-call-start', choice: 0, index: 0, id: 'call_a', name: 'get_weather' },
      { type: 'tool-call-args', choice: 0, index: 0, args: '{"city":' },
      { type: 'tool-call-args', choice: 0, index: 0, args: '"Paris"}' },
      { type: 'tool-call-start', choice: 0, index: 1, id: 'call_b', name: 'get_time' },
      { type: 'tool-call-args', choice: 0, index: 1, args: '{}' },
      { type: 'finish', choice: 0, reason: 'tool_calls' },
    ]);
    expect(chunks.map((c) => c.choices[0].delta)).toEqual([
      { role: 'assistant', content: null, tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '' } }] },
      { tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] },
      { tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] },
      { content: null, tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'get_time', arguments: '' } }] },
      { tool_calls: [{ index: 1, function: { arguments: '{}' } }] },
      {},
    ]);
    expect(chunks.at(-1)!.choices[0].finish_reason).toBe('tool_calls');
    const args = chunks.flatMap((c) => c.choices[0].delta.tool_calls ?? []).filter((t: { index: number }) => t.index === 0);
    expect(args.map((t: { function: { arguments: string } }) => t.function.arguments).join('')).toBe('{"city":"Paris"}');
  });

  it('puts usage in a last chunk with no choices, just before [DONE], when asked for', () => {
    const usage = { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 };
    const { chunks, text, writer } = write('chat', true, [
      META,
      { type: 'usage', usage },
      { type: 'text', choice: 0, text: 'hi' },
      { type: 'finish', choice: 0, reason: 'stop' },
      { type: 'done' },
    ]);
    expect(chunks.at(-1)).toEqual({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1700000000, model: 'claude-x', system_fingerprint: null, choices: [], usage });
    expect(chunks.slice(0, -1).every((c) => c.usage === undefined)).toBe(true);
    expect(text.endsWith(`"usage":${JSON.stringify(usage)}}\n\ndata: [DONE]\n\n`)).toBe(true);
    expect(writer.lastUsage).toEqual(usage);
  });

  it('writes no usage chunk when it was not asked for', () => {
    const { chunks, writer } = write('chat', false, [
      META,
      { type: 'usage', usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } },
      { type: 'text', choice: 0, text: 'x' },
      { type: 'done' },
    ]);
    expect(chunks).toHaveLength(1);
    expect(chunks[0].usage).toBeUndefined();
    expect(writer.lastUsage).toEqual({ prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 });
  });

  it('passes chunks that are already OpenAI-shaped through byte for byte', () => {
    const data = '{"id":"x","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"é"}}],"extra":{"kept":true}}';
    const writer = new OpenAIChunkWriter('chat', true);
    expect(writer.write({ type: 'chunk', data })).toBe(`data: ${data}\n\n`);
    expect(writer.write({ type: 'done' })).toBe('data: [DONE]\n\n');
  });

  it('writes nothing for meta and usage parts themselves', () => {
    const writer = new OpenAIChunkWriter('chat', true);
    expect(writer.write(META)).toBe('');
    expect(writer.write({ type: 'usage', usage: { prompt_tokens: 1, completion_tokens: 0, total_tokens: 1 } })).toBe('');
  });
});

describe('OpenAIChunkWriter (text completions)', () => {
  it('writes text_completion chunks with text, index, logprobs and finish_reason', () => {
    const usage = { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 };
    const { chunks, text } = write('text', true, [
      { type: 'meta', id: 'cmpl-1', model: 'gpt-3.5-turbo-instruct', created: 1 },
      { type: 'text', choice: 0, text: 'This is' },
      { type: 'text', choice: 0, text: ' a test' },
      { type: 'finish', choice: 0, reason: 'length' },
      { type: 'usage', usage },
      { type: 'done' },
    ]);
    expect(chunks).toEqual([
      { id: 'cmpl-1', object: 'text_completion', created: 1, model: 'gpt-3.5-turbo-instruct', choices: [{ text: 'This is', index: 0, logprobs: null, finish_reason: null }] },
      { id: 'cmpl-1', object: 'text_completion', created: 1, model: 'gpt-3.5-turbo-instruct', choices: [{ text: ' a test', index: 0, logprobs: null, finish_reason: null }] },
      { id: 'cmpl-1', object: 'text_completion', created: 1, model: 'gpt-3.5-turbo-instruct', choices: [{ text: '', index: 0, logprobs: null, finish_reason: 'length' }] },
      { id: 'cmpl-1', object: 'text_completion', created: 1, model: 'gpt-3.5-turbo-instruct', choices: [], usage },
    ]);
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
  });
});

describe('sseErrorEvent', () => {
  it('is one data event holding the whole error body', () => {
    const body = { status: 'failure', message: 'cut', error: { type: 'provider_error', code: 'provider_error', message: 'cut', param: null, provider: 'openai' } };
    const event = sseErrorEvent(body);
    expect(event).toBe(`data: ${JSON.stringify(body)}\n\n`);
    expect(event).not.toContain('[DONE]');
  });
});
