import type { BudgetWindow } from '../../../generated/governance/budget.js';
import { dayNumber, localDate, localDay, startOfLocalDay } from './local-time.js';

/**
 * Budget windows keyed by their index: spend is kept per (series, index), so a new window starts
 * empty by arithmetic alone and no reset job can wipe spend. Calendar windows (day, ISO week,
 * month in the budget's time zone; "<n>h" aligned to the epoch; "<n>d" aligned to the epoch in
 * local days; total) have one index each; rolling windows count the last 24 buckets of
 * period/24 up to now.
 */

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
/** Buckets a rolling window keeps. */
export const ROLLING_BUCKETS = 24;

/** Where a budget's spend is, at one instant. */
export interface WindowPosition {
  /** Names the window kind, period and zone: spend of another kind is never read as this one's. */
  series: string;
  /** Indexes counted (inclusive); settled spend goes to `to`. Calendar: from === to. */
  from: number;
  to: number;
  /** Unix seconds when a calendar window resets (null: total). Rolling: see rollingResetAt. */
  resetAt: number | null;
  /** Rolling windows: the bucket length in ms. */
  bucketMs?: number;
}

export interface CompiledWindow {
  readonly series: string;
  position(ms: number): WindowPosition;
  /** The index settled spend at `ms` goes to (position(ms).to, without making the position). */
  index(ms: number): number;
  /** Calendar windows: [start, end) in Unix ms of the window holding `ms` (end Infinity for total). */
  bounds?(ms: number): { index: number; start: number; end: number };
}

/** Unix seconds when the oldest counted bucket (`oldest`) leaves a rolling window. */
export function rollingResetAt(oldest: number, bucketMs: number): number {
  return Math.ceil(((oldest + ROLLING_BUCKETS) * bucketMs) / 1000);
}

/** The length of a period in ms for rolling windows (a month is 30 days). */
function periodMs(period: string): number {
  if (period === 'day') return DAY_MS;
  if (period === 'week') return 7 * DAY_MS;
  if (period === 'month') return 30 * DAY_MS;
  const n = Number(period.slice(0, -1));
  return period.endsWith('h') ? n * HOUR_MS : n * DAY_MS;
}

/** Calendar index arithmetic of one period in one zone: index of an instant, and the start of an index. */
interface Calendar {
  index(ms: number): number;
  start(index: number): number;
}

function calendar(period: string, timeZone: string): Calendar {
  if (period === 'day') return { index: (ms) => localDay(ms, timeZone), start: (i) => startOfLocalDay(i, timeZone) };
  if (period === 'week')
    // ISO weeks start on Monday; day 0 (1970-01-01) was a Thursday, so Monday -3 starts week 0.
    return { index: (ms) => Math.floor((localDay(ms, timeZone) + 3) / 7), start: (i) => startOfLocalDay(i * 7 - 3, timeZone) };
  if (period === 'month')
    return {
      index: (ms) => {
        const { year, month } = localDate(ms, timeZone);
        return year * 12 + month - 1;
      },
      start: (i) => startOfLocalDay(dayNumber(Math.floor(i / 12), (((i % 12) + 12) % 12) + 1, 1), timeZone),
    };
  const n = Number(period.slice(0, -1));
  if (period.endsWith('h')) return { index: (ms) => Math.floor(ms / (n * HOUR_MS)), start: (i) => i * n * HOUR_MS };
  return { index: (ms) => Math.floor(localDay(ms, timeZone) / n), start: (i) => startOfLocalDay(i * n, timeZone) };
}

/** A budget's window, compiled once; the current calendar window's bounds are kept so most requests compute nothing. */
export function compileWindow(window: BudgetWindow | undefined): CompiledWindow {
  const period = window?.period ?? 'month';
  const kind = window?.kind ?? 'calendar';
  const timeZone = window?.timezone ?? 'UTC';
  if (period === 'total') {
    return { series: 'total', position: () => ({ series: 'total', from: 0, to: 0, resetAt: null }), index: () => 0, bounds: () => ({ index: 0, start: -Infinity, end: Infinity }) };
  }
  if (kind === 'rolling') {
    const bucketMs = Math.max(1, Math.floor(periodMs(period) / ROLLING_BUCKETS));
    const series = `r:${bucketMs}`;
    return {
      series,
      position(ms) {
        const to = Math.floor(ms / bucketMs);
        return { series, from: to - ROLLING_BUCKETS + 1, to, resetAt: null, bucketMs };
      },
      index: (ms) => Math.floor(ms / bucketMs),
    };
  }
  const cal = calendar(period, timeZone);
  // A zone only matters to local-date periods.
  const series = /^[0-9]+h$/.test(period) ? `c:${period}` : `c:${period}:${timeZone}`;
  let cached = { index: 0, start: 0, end: -Infinity };
  const bounds = (ms: number) => {
    if (ms >= cached.start && ms < cached.end) return cached;
    const index = cal.index(ms);
    const b = { index, start: cal.start(index), end: cal.start(index + 1) };
    cached = b;
    return b;
  };
  return {
    series,
    bounds,
    index: (ms) => bounds(ms).index,
    position(ms) {
      const b = bounds(ms);
      return { series, from: b.index, to: b.index, resetAt: Math.ceil(b.end / 1000) };
    },
  };
}
