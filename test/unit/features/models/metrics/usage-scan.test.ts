import { describe, expect, it } from 'vitest';
import { scanAnswer, usageFacts } from '../../../../../src/features/models/metrics/usage-scan.js';

const bytes = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value, null, 2));

describe('scanAnswer (the usage of an answer passed through as bytes)', () => {
  it('reads an OpenAI answer: prompt and completion tokens, and its model', () => {
    const facts = scanAnswer(
      bytes({
        id: 'chatcmpl-1',
        model: 'gpt-4o-mini-2024-07-18',
        choices: [{ index: 0, message: { role: 'assistant', content: 'the word "usage" inside text' } }],
        usage: { prompt_tokens: 31, completion_tokens: 12, total_tokens: 43, prompt_tokens_details: { cached_tokens: 0 } },
      }),
    );
    expect(facts).toMatchObject({ input: 31, output: 12 });
    expect(facts?.model).toBe('gpt-4o-mini-2024-07-18');
  });

  it('adds Anthropic cache reads and writes to the input', () => {
    const facts = scanAnswer(
      bytes('{"model":"claude-sonnet-4","usage":{"input_tokens" : 10,"cache_creation_input_tokens":\n 200,"cache_read_input_tokens":3000,"output_tokens":7}}'),
    );
    expect(facts).toMatchObject({ input: 3210, output: 7 });
    expect(facts?.model).toBe('claude-sonnet-4');
  });

  it('gives nothing without a usage object, and zero for counts that are not numbers', () => {
    expect(scanAnswer(bytes({ model: 'm', choices: [] }))).toBeUndefined();
    const facts = scanAnswer(bytes('{"usage":{"prompt_tokens":null,"completion_tokens":"5"}}'));
    expect(facts).toMatchObject({ input: 0, output: 0 });
    expect(facts?.model).toBeUndefined();
  });

  it('agrees with usageFacts on the parsed answer', () => {
    const answer = { model: 'x', usage: { input_tokens: 4, output_tokens: 9, cache_read_input_tokens: 1 } };
    const scanned = scanAnswer(bytes(answer))!;
    expect({ input: scanned.input, output: scanned.output, model: scanned.model }).toEqual(usageFacts(answer.usage, answer.model));
  });
});
