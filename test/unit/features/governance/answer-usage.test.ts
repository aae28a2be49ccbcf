import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { usageOfRaw } from '../../../../src/features/governance/metering/answer-usage.js';

/** An answer's raw bytes: the usage block is read from them without parsing the whole answer. */
describe('usageOfRaw', () => {
  const usage = fc.record({
    prompt_tokens: fc.nat(),
    completion_tokens: fc.nat(),
    total_tokens: fc.nat(),
    prompt_tokens_details: fc.record({ cached_tokens: fc.nat(), note: fc.string({ unit: 'binary' }) }),
  });
  const answer = fc.record({
    id: fc.string({ unit: 'binary' }),
    choices: fc.array(fc.record({ message: fc.record({ content: fc.string({ unit: 'binary' }) }) }), { maxLength: 3 }),
    usage,
  });

  it('finds the last usage object, whatever the text before it and the spacing', () => {
    fc.assert(
      fc.property(answer, fc.constantFrom(0, 1, 2, '\t'), (body, indent) => {
        const raw = Buffer.from(JSON.stringify(body, null, indent));
        expect(usageOfRaw(raw)).toEqual(body.usage);
      }),
    );
  });

  it('answers undefined when there is no usage object to read', () => {
    expect(usageOfRaw(Buffer.from('{"id":"x","choices":[]}'))).toBeUndefined();
    expect(usageOfRaw(Buffer.from('{"object":"usage"}'))).toBeUndefined();
    expect(usageOfRaw(Buffer.from('{"usage": null}'))).toBeUndefined();
    expect(usageOfRaw(Buffer.from('{"usage": {"prompt_tokens": 3'))).toBeUndefined();
    expect(usageOfRaw(Buffer.from('{"usage": x {"prompt_tokens": 3}}'))).toBeUndefined();
  });

  it('reads a usage object holding braces, quotes and multi-byte text in its strings', () => {
    const body = { usage: { prompt_tokens: 1, note: 'a } { " \\ é 漢 😀' } };
    expect(usageOfRaw(Buffer.from(JSON.stringify(body)))).toEqual(body.usage);
  });
});
