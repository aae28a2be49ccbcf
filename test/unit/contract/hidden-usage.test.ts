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
});
