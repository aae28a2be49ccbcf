import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { matchesWildcard, wildcard } from '../../../../src/kernel/text/wildcard.js';

/** The RegExp the wildcard stands for (the reference it must agree with). */
function reference(pattern: string, question: boolean, flags = ''): RegExp {
  const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const body = pattern
    .split('*')
    .map((part) => (question ? part.split('?').map(esc).join('.') : esc(part)))
    .join('[\\s\\S]*');
  return new RegExp(`^${body}$`, flags);
}

describe('wildcard', () => {
  it('matches * as any run and everything else literally', () => {
    expect(wildcard('github__*').test('github__create_issue')).toBe(true);
    expect(wildcard('github__*').test('gitlab__x')).toBe(false);
    expect(wildcard('*').test('')).toBe(true);
    expect(wildcard('a.b').test('axb')).toBe(false);
    expect(wildcard('openai/*').test('openai/gpt-4o')).toBe(true);
    expect(wildcard('gpt-?o', { question: true }).test('gpt-4o')).toBe(true);
    expect(wildcard('gpt-?o').test('gpt-4o')).toBe(false);
    expect(wildcard('GPT-*', { ignoreCase: true }).test('gpt-4o')).toBe(true);
  });

  it('agrees with the RegExp it stands for (fuzz)', () => {
    const chars = fc.constantFrom('a', 'b', '*', '?', '.', '_');
    fc.assert(
      fc.property(
        fc.string({ unit: chars, maxLength: 8 }),
        fc.string({ unit: fc.constantFrom('a', 'b', '.', '_', '?'), maxLength: 12 }),
        fc.boolean(),
        (pattern, text, question) => {
          expect(wildcard(pattern, { question }).test(text)).toBe(reference(pattern, question).test(text));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('matchesWildcard (uncompiled, * only) agrees with the RegExp too (fuzz)', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom('a', 'b', '*', '?', '.'), maxLength: 8 }),
        fc.string({ unit: fc.constantFrom('a', 'b', '.', '?'), maxLength: 12 }),
        (pattern, text) => {
          expect(matchesWildcard(pattern, text)).toBe(reference(pattern, false).test(text));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('answers a hostile pattern on a long name in bounded steps', () => {
    const pattern = `${'a*'.repeat(40)}b`;
    const text = 'a'.repeat(20_000);
    expect(wildcard(pattern).test(text)).toBe(false);
    expect(wildcard(pattern).test(`${text}b`)).toBe(true);
  });
});
