import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { compileWindow, ROLLING_BUCKETS, rollingResetAt } from '../../../../src/features/governance/budgets/budget-window.js';
import { localDate, localDay, offsetAt, startOfLocalDay } from '../../../../src/features/governance/budgets/local-time.js';

const ZONES: string[] = Intl.supportedValuesOf('timeZone');
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** 1950 .. 2100 */
const instant = fc.integer({ min: Date.UTC(1950, 0, 1), max: Date.UTC(2100, 0, 1) });
const PERIODS = ['day', 'week', 'month', '1h', '6h', '7h', '1d', '3d', '10d'];

const at = (iso: string) => Date.parse(iso);

describe('budget windows: calendar', () => {
  it('day windows of a UTC budget start at midnight UTC and reset at the next', () => {
    const w = compileWindow({ period: 'day' });
    const p = w.position(at('2026-03-10T15:00:00Z'));
    expect(p.from).toBe(p.to);
    expect(p.resetAt).toBe(at('2026-03-11T00:00:00Z') / 1000);
    expect(w.position(at('2026-03-10T23:59:59.999Z')).to).toBe(p.to);
    expect(w.position(at('2026-03-11T00:00:00Z')).to).toBe(p.to + 1);
  });

  it('DST days last 23 and 25 hours in their zone', () => {
    const w = compileWindow({ period: 'day', timezone: 'Europe/Paris' });
    const spring = w.bounds!(at('2026-03-29T12:00:00Z'));
    expect(spring.end - spring.start).toBe(23 * HOUR);
    expect(spring.start).toBe(at('2026-03-28T23:00:00Z'));
    const autumn = w.bounds!(at('2026-10-25T12:00:00Z'));
    expect(autumn.end - autumn.start).toBe(25 * HOUR);
    const ny = compileWindow({ period: 'day', timezone: 'America/New_York' }).bounds!(at('2026-03-08T12:00:00Z'));
    expect(ny.end - ny.start).toBe(23 * HOUR);
    expect(ny.start).toBe(at('2026-03-08T05:00:00Z'));
  });

  it('a day that starts inside a DST gap starts at its first instant', () => {
    // America/Santiago skipped 00:00-01:00 on 2026-09-06 (clocks jumped to 01:00, -03).
    const start = startOfLocalDay(localDay(at('2026-09-06T12:00:00Z'), 'America/Santiago'), 'America/Santiago');
    expect(localDay(start, 'America/Santiago')).toBe(localDay(at('2026-09-06T12:00:00Z'), 'America/Santiago'));
    expect(localDay(start - 1, 'America/Santiago')).toBe(localDay(at('2026-09-06T12:00:00Z'), 'America/Santiago') - 1);
  });

  it('weeks are ISO weeks starting on Monday in the zone', () => {
    const w = compileWindow({ period: 'week', timezone: 'Asia/Tokyo' });
    const b = w.bounds!(at('2026-11-26T10:00:00Z')); // a Thursday
    expect(b.start).toBe(at('2026-11-22T15:00:00Z')); // Monday 23rd 00:00 +09
    expect(b.end - b.start).toBe(7 * DAY);
  });

  it('months follow the calendar, leap years included', () => {
    const w = compileWindow({ period: 'month' });
    const feb2024 = w.bounds!(at('2024-02-15T00:00:00Z'));
    expect(feb2024.end - feb2024.start).toBe(29 * DAY);
    const feb2100 = w.bounds!(at('2100-02-15T00:00:00Z'));
    expect(feb2100.end - feb2100.start).toBe(28 * DAY);
    const feb2000 = w.bounds!(at('2000-02-15T00:00:00Z'));
    expect(feb2000.end - feb2000.start).toBe(29 * DAY);
    const dec = w.bounds!(at('2026-12-31T23:59:59Z'));
    expect(dec.end).toBe(at('2027-01-01T00:00:00Z'));
  });

  it('"<n>h" windows are aligned to the epoch, "<n>d" to local days since the epoch', () => {
    const h = compileWindow({ period: '6h', timezone: 'Asia/Kolkata' }).bounds!(at('2026-01-01T13:00:00Z'));
    expect(h.start).toBe(at('2026-01-01T12:00:00Z'));
    expect(h.end).toBe(at('2026-01-01T18:00:00Z'));
    const d = compileWindow({ period: '2d', timezone: 'Asia/Kolkata' }).bounds!(at('1970-01-01T20:00:00Z'));
    // 1970-01-02 01:30 local: day 1, in the window of days 0-1, which ends at local midnight of day 2.
    expect(d.end).toBe(at('1970-01-02T18:30:00Z'));
  });

  it('total never resets', () => {
    const w = compileWindow({ period: 'total', kind: 'rolling' });
    expect(w.position(0)).toMatchObject({ from: 0, to: 0, resetAt: null });
    expect(w.position(at('2090-01-01T00:00:00Z'))).toMatchObject({ from: 0, to: 0, resetAt: null });
  });

  it('in every zone and period: indexes are monotone, a window holds its instant, and the next one starts where it ends (fuzz)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...ZONES), fc.constantFrom(...PERIODS), instant, fc.integer({ min: 0, max: 40 * DAY }), (timezone, period, t, step) => {
        const w = compileWindow({ period, timezone });
        const b = w.bounds!(t);
        expect(b.start).toBeLessThanOrEqual(t);
        expect(t).toBeLessThan(b.end);
        expect(w.bounds!(b.end - 1).index).toBe(b.index);
        expect(w.bounds!(b.end).index).toBe(b.index + 1);
        expect(w.bounds!(b.start).index).toBe(b.index);
        expect(w.bounds!(b.start - 1).index).toBe(b.index - 1);
        expect(w.position(t).resetAt).toBe(Math.ceil(b.end / 1000));
        expect(w.position(t + step).to).toBeGreaterThanOrEqual(w.position(t).to);
        if (period === 'day' || period === '1d') {
          // A local day lasts 24 h give or take DST shifts (at most a few hours, never 0).
          expect(Math.abs(b.end - b.start - DAY)).toBeLessThanOrEqual(3 * HOUR);
          expect(localDay(b.start, timezone)).toBe(b.index);
        }
        if (period === 'month') expect(localDate(b.start, timezone).day).toBe(1);
      }),
      { numRuns: 3000 },
    );
  });

  it('local midnight of every day in every zone is the first instant of that date (fuzz)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...ZONES), fc.integer({ min: -7300, max: 47000 }), (zone, day) => {
        const start = startOfLocalDay(day, zone);
        expect(localDay(start, zone)).toBe(day);
        expect(localDay(start - 1, zone)).toBe(day - 1);
      }),
      { numRuns: 3000 },
    );
  });

  it('every zone over 2026: each day lasts 24 h plus the change of its offset (23/25 h on DST days, 22/26 h in Antarctica/Troll)', () => {
    const seen = new Set<number>();
    for (const zone of ZONES) {
      const w = compileWindow({ period: 'day', timezone: zone });
      let t = at('2026-01-01T12:00:00Z');
      for (let i = 0; i < 366; i++) {
        const b = w.bounds!(t);
        // A day starting in a gap starts at its first existing minute (time of day > 0).
        const tod = (ms: number): number => (((ms + offsetAt(ms, zone)) % DAY) + DAY) % DAY;
        if (b.end - b.start !== DAY || i % 30 === 0) {
          expect(tod(b.start)).toBeLessThanOrEqual(2 * HOUR);
          expect(b.end - b.start).toBe(DAY - tod(b.start) + tod(b.end) + offsetAt(b.start, zone) - offsetAt(b.end, zone));
        }
        seen.add(b.end - b.start);
        t = b.end;
      }
    }
    expect([...seen].sort()).toEqual(expect.arrayContaining([DAY, 23 * HOUR, 25 * HOUR]));
  });
});

describe('budget windows: rolling', () => {
  it('keeps 24 buckets of period/24 up to now; the oldest counted bucket leaves a period after it began', () => {
    const w = compileWindow({ period: 'day', kind: 'rolling' });
    const t = at('2026-05-05T10:30:00Z');
    const p = w.position(t);
    expect(p.bucketMs).toBe(HOUR);
    expect(p.to - p.from + 1).toBe(ROLLING_BUCKETS);
    expect(p.to).toBe(Math.floor(t / HOUR));
    expect(rollingResetAt(p.from, p.bucketMs!)).toBe(at('2026-05-05T11:00:00Z') / 1000);
    expect(w.series).not.toBe(compileWindow({ period: 'day' }).series);
  });

  it('bucket indexes are monotone and always span 24 buckets (fuzz)', () => {
    fc.assert(
      fc.property(fc.constantFrom('day', 'week', 'month', '1h', '5h', '2d'), instant, fc.integer({ min: 0, max: 10 * DAY }), (period, t, step) => {
        const w = compileWindow({ period, kind: 'rolling' });
        const a = w.position(t);
        const b = w.position(t + step);
        expect(b.to).toBeGreaterThanOrEqual(a.to);
        expect(a.to - a.from).toBe(ROLLING_BUCKETS - 1);
        expect(a.to * a.bucketMs!).toBeLessThanOrEqual(t);
        expect(t).toBeLessThan((a.to + 1) * a.bucketMs!);
      }),
    );
  });
});
