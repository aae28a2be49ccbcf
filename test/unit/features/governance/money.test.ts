import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { microsFromPico, microsFromSafePico, picoFromDecimal, ppmFromDecimal, usdFromMicros } from '../../../../src/features/governance/prices/money.js';

describe('money', () => {
  it('reads decimal dollar strings exactly into picodollars', () => {
    expect(picoFromDecimal('0.0000025')).toBe(2_500_000n);
    expect(picoFromDecimal('0.000000075')).toBe(75_000n);
    expect(picoFromDecimal('0.000000000001')).toBe(1n);
    expect(picoFromDecimal('12.5')).toBe(12_500_000_000_000n);
    expect(picoFromDecimal('0')).toBe(0n);
  });

  it('refuses anything that is not a plain decimal', () => {
    for (const bad of ['', '.5', '1e-6', '-0.1', '0.0000000000001', '01', '1,5', ' 1', '1000']) expect(picoFromDecimal(bad)).toBeUndefined();
  });

  it('reads shares as parts per million, never above one', () => {
    expect(ppmFromDecimal('0.5')).toBe(500_000n);
    expect(ppmFromDecimal('1')).toBe(1_000_000n);
    expect(ppmFromDecimal('1.5')).toBeUndefined();
    expect(ppmFromDecimal('2')).toBeUndefined();
  });

  it('charges whole microdollars rounded up, and nothing for nothing', () => {
    expect(microsFromPico(0n)).toBe(0);
    expect(microsFromPico(1n)).toBe(1);
    expect(microsFromPico(1_000_000n)).toBe(1);
    expect(microsFromPico(1_000_001n)).toBe(2);
  });

  it('charges a safe-integer Number of picodollars exactly as the BigInt of it (fuzz, up to 2^53)', () => {
    for (const n of [0, 1, 999_999, 1_000_000, 1_000_001, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER - 1, 9_007_199_254_000_000, 9_007_199_253_999_999])
      expect(microsFromSafePico(n), String(n)).toBe(microsFromPico(BigInt(n)));
    fc.assert(
      fc.property(fc.maxSafeNat(), (n) => microsFromSafePico(n) === microsFromPico(BigInt(n))),
      { numRuns: 2000 },
    );
  });

  it('writes microdollars as dollars with six decimals', () => {
    expect(usdFromMicros(0)).toBe('0.000000');
    expect(usdFromMicros(1)).toBe('0.000001');
    expect(usdFromMicros(12_345_678)).toBe('12.345678');
  });

  it('round-trips any decimal of up to 12 places (fuzz)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 999 }), fc.bigInt({ min: 0n, max: 999_999_999_999n }), (whole, frac) => {
        const text = `${whole}.${frac.toString().padStart(12, '0')}`;
        expect(picoFromDecimal(text)).toBe(BigInt(whole) * 1_000_000_000_000n + frac);
      }),
    );
  });
});
