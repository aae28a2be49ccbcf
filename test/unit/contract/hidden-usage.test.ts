import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OpenAIChunkWriter } from '../../../src/contract/openai/chunk-writer.js';
import { OpenAISseScanner } from '../../../src/contract/openai/sse-passthrough.js';

const content = JSON.stringify({ id: 'c', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: 'hi' }, finish_reason: null }] });
const usageOnly = JSON.stringify({ id: 'c', object: 'chat.completion.chunk', choices: [], usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } });
const withChoiceAndUsage = JSON.stringify({
  id: 'c',
  object: 'chat.completion.chunk',
  choices: [{ index: 0, delta: {}, finish_reason: 'stop' }],
  usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
});

/** Usage the gateway asked for on a caller's behalf (metering): noted, its usage-only chunk not sent. */
describe('hidden usage of a stream', () => {
  it('the chunk writer notes the usage and leaves the usage-only chunk out', () => {
    const writer = new OpenAIChunkWriter('chat', false, true);
    expect(writer.write({ type: 'chunk', data: content })).toBe(`data: ${content}\n\n`);
    expect(writer.write({ type: 'chunk', data: usageOnly })).toBe('');
    expect(writer.write({ type: 'done' })).toBe('data: [DONE]\n\n');
    expect(writer.lastUsage).toEqual({ prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 });
  });

  it('a usage riding on a chunk with choices is noted and the chunk still sent', () => {
    const writer = new OpenAIChunkWriter('chat', false, true);
    expect(writer.write({ type: 'chunk', data: withChoiceAndUsage })).toBe(`data: ${withChoiceAndUsage}\n\n`);
    expect(writer.lastUsage).toMatchObject({ total_tokens: 5 });
  });

  it('the passthrough scanner cuts only the usage-only event out of the bytes it passes', () => {
    const scanner = new OpenAISseScanner(false, true);
    const bytes = Buffer.from(`data: ${content}\n\ndata: ${usageOnly}\n\ndata: [DONE]\n\n`);
    const scan = scanner.scan(bytes);
    expect(scan.done).toBe(true);
    expect(scan.out!.toString()).toBe(`data: ${content}\n\ndata: [DONE]\n\n`);
    expect(scanner.usage).toEqual({ prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 });
  });

  it('without hidden usage the bytes pass untouched', () => {
    const scanner = new OpenAISseScanner(true);
    const bytes = Buffer.from(`data: ${content}\n\ndata: ${usageOnly}\n\ndata: [DONE]\n\n`);
    expect(scanner.scan(bytes).out).toEqual(bytes);
    expect(scanner.usage).toMatchObject({ total_tokens: 5 });
  });

  it('finds the last usage object past chunks that carry "usage":null, also with whitespace before its brace', () => {
    const nullUsage = (text: string) => `{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":${JSON.stringify(text)}}}],"usage":null}`;
    const spaced = '{"id":"c","object":"chat.completion.chunk","choices":[],"usage": \t {"prompt_tokens":7,"completion_tokens":1,"total_tokens":8}}';
    // the usage chunk between content chunks, and a content text that quotes a usage key
    const scanner = new OpenAISseScanner(true);
    const bytes = Buffer.from(`data: ${nullUsage('a')}\n\ndata: ${spaced}\n\ndata: ${nullUsage('"usage":{"x":1}')}\n\ndata: ${nullUsage('b')}\n\n`);
    expect(scanner.scan(bytes).out).toEqual(bytes);
    expect(scanner.usage).toEqual({ prompt_tokens: 7, completion_tokens: 1, total_tokens: 8 });
    // hidden: the spaced usage-only chunk is the one cut out
    const hiding = new OpenAISseScanner(false, true);
    expect(hiding.scan(Buffer.from(`data: ${nullUsage('a')}\n\ndata: ${spaced}\n\ndata: [DONE]\n\n`)).out!.toString()).toBe(`data: ${nullUsage('a')}\n\ndata: [DONE]\n\n`);
  });

  it('notes the usage of the last chunk whose usage is an object, whatever the chunks around it', () => {
    const chunk = fc.oneof(
      fc.record({ kind: fc.constant('text' as const), text: fc.string(), nullUsage: fc.boolean() }),
      fc.record({ kind: fc.constant('usage' as const), tokens: fc.nat(1_000_000), choices: fc.boolean(), space: fc.constantFrom('', ' ', '  ') }),
    );
    fc.assert(
      fc.property(fc.array(chunk, { minLength: 1, maxLength: 12 }), (chunks) => {
        const events = chunks.map((c) =>
          c.kind === 'text'
            ? JSON.stringify({ id: 'c', choices: [{ index: 0, delta: { content: c.text } }], ...(c.nullUsage ? { usage: null } : {}) })
            : `{"id":"c","choices":${c.choices ? '[{"index":0,"delta":{}}]' : '[]'},"usage":${c.space}{"total_tokens":${c.tokens}}}`,
        );
        const scanner = new OpenAISseScanner(true);
        scanner.scan(Buffer.from(events.map((e) => `data: ${e}\n\n`).join('')));
        const last = [...chunks].reverse().find((c) => c.kind === 'usage');
        expect(scanner.usage).toEqual(last && last.kind === 'usage' ? { total_tokens: last.tokens } : undefined);
      }),
    );
  });
});
