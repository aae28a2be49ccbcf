import { describe, expect, it } from 'vitest';
import { timeOrderedUuid } from '../../../src/kernel/time-ordered-id.js';

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('timeOrderedUuid', () => {
  it('is a UUIDv7: the milliseconds in its first 48 bits, version 7, the RFC variant', () => {
    const at = Date.UTC(2026, 10, 27, 10, 0, 0, 123);
    const id = timeOrderedUuid(at);
    expect(id).toMatch(V7);
    expect(parseInt(id.slice(0, 8) + id.slice(9, 13), 16)).toBe(at);
  });

  it('sorts by time as text, and ids of one millisecond differ', () => {
    const ids = [1_000, 1_001, 1_700_000_000_000, 1_700_000_000_001, 2 ** 47].map((ms) => timeOrderedUuid(ms));
    expect([...ids].sort()).toEqual(ids);
    const same = new Set(Array.from({ length: 1000 }, () => timeOrderedUuid(5)));
    expect(same.size).toBe(1000);
    for (const id of same) expect(id).toMatch(V7);
  });

  it('its random digits vary: every hex digit and every variant turns up, and no id repeats', () => {
    const ids = Array.from({ length: 4000 }, () => timeOrderedUuid(1_700_000_000_000));
    expect(new Set(ids).size).toBe(ids.length);
    const randomPart = (id: string) => id.slice(15, 18) + id.slice(20, 23) + id.slice(24);
    for (let digit = 0; digit < 18; digit++) expect(new Set(ids.map((id) => randomPart(id)[digit])).size).toBe(16);
    expect(new Set(ids.map((id) => id[19]))).toEqual(new Set(['8', '9', 'a', 'b']));
  });
});
