import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { byteNeedle, holds, holdsAny, searchText } from '../../../../src/kernel/errors/byte-needles.js';
import { redactAnswerBytes } from '../../../../src/kernel/errors/redact.js';

const text = fc.string({ unit: fc.constantFrom('a', 'b', 'é', '😀', '\\', 'u', '%', '5', 'c', '\u00ff', '\u0100') });

describe('byte needles', () => {
  it('find a text in a chunk exactly where Buffer.includes finds its bytes, short chunks or long (fast-check)', () => {
    fc.assert(
      fc.property(text, fc.string({ minLength: 1, maxLength: 4 }), text, fc.nat(3000), fc.boolean(), (before, needleText, after, pad, inside) => {
        const body = inside ? before + needleText + after : before + after;
        const buf = Buffer.from('x'.repeat(pad) + body, 'utf8');
        const needle = byteNeedle(needleText);
        const expected = buf.includes(Buffer.from(needleText, 'utf8'));
        expect(holds(buf, searchText(buf), needle)).toBe(expected);
        expect(holds(buf, undefined, needle)).toBe(expected);
        expect(holdsAny(buf, searchText(buf), [byteNeedle('\u0000never'), needle])).toBe(expected);
      }),
    );
  });

  it('search chunks up to 1 KB as latin1 text, longer ones as bytes', () => {
    expect(searchText(Buffer.alloc(1024, 0xe9))).toBe('\u00e9'.repeat(1024));
    expect(searchText(Buffer.alloc(1025))).toBeUndefined();
  });

  it('leave no caller secret in an answer chunk, however long the chunk and wherever the secret stands (fast-check)', () => {
    fc.assert(
      fc.property(text, text, fc.constantFrom(0, 100, 1000, 2000), (before, after, pad) => {
        const secret = 'caller-sécret-0001';
        const buf = Buffer.from(`{"t":"${'y'.repeat(pad)}${before}${secret}${after}"}`, 'utf8');
        expect(redactAnswerBytes(buf, [secret]).includes(Buffer.from(secret))).toBe(false);
      }),
    );
  });
});
