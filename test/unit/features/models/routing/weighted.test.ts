import { describe, expect, it } from 'vitest';
import { weightedOrder } from '../../../../../src/features/models/routing/weighted.js';

/** A seeded generator (mulberry32) so the statistics are reproducible. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('weightedOrder (load-balancing chooser)', () => {
  it('draws the first target in proportion to the weights over 2000 draws', () => {
    const random = seeded(42);
    const weights = [0.7, 0.2, 0.1];
    const first = [0, 0, 0];
    const draws = 2000;
    for (let i = 0; i < draws; i++) first[weightedOrder(weights, random)[0]!]!++;
    // Binomial standard deviation at n=2000 is at most ~1.1 percentage points; bands are ~4 sigma.
    expect(first[0]! / draws).toBeGreaterThan(0.65);
    expect(first[0]! / draws).toBeLessThan(0.75);
    expect(first[1]! / draws).toBeGreaterThan(0.16);
    expect(first[1]! / draws).toBeLessThan(0.24);
    expect(first[2]! / draws).toBeGreaterThan(0.07);
    expect(first[2]! / draws).toBeLessThan(0.13);
  });

  it('treats equal (default) weights evenly', () => {
    const random = seeded(7);
    const counts = [0, 0, 0, 0];
    for (let i = 0; i < 2000; i++) counts[weightedOrder([1, 1, 1, 1], random)[0]!]!++;
    for (const c of counts) {
      expect(c / 2000).toBeGreaterThan(0.21);
      expect(c / 2000).toBeLessThan(0.29);
    }
  });

  it('returns every positive-weight target once, and never a zero-weight one', () => {
    const random = seeded(3);
    for (let i = 0; i < 200; i++) {
      const order = weightedOrder([2, 0, 1, 5], random);
      expect([...order].sort()).toEqual([0, 2, 3]);
    }
  });

  it('after the first draw, picks the next among the rest by their weights', () => {
    const random = seeded(11);
    let secondIsB = 0;
    let firstA = 0;
    for (let i = 0; i < 2000; i++) {
      const order = weightedOrder([0.5, 0.4, 0.1], random);
      if (order[0] === 0) {
        firstA++;
        if (order[1] === 1) secondIsB++;
      }
    }
    // Given A first, B comes next with probability 0.4 / 0.5 = 0.8.
    expect(secondIsB / firstA).toBeGreaterThan(0.74);
    expect(secondIsB / firstA).toBeLessThan(0.86);
  });
});
