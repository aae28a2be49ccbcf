import { badRequest } from '../../../contract/errors/gateway-error.js';

/**
 * Local calendar dates of an IANA time zone, from Intl: the local day of an instant (days since
 * 1970-01-01 as written in that zone) and the first instant of a local day (DST-safe: a day that
 * starts inside a gap starts at its first existing instant).
 */

const DAY_MS = 86_400_000;
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone, year: 'numeric', month: 'numeric', day: 'numeric', era: 'short' });
    formatters.set(timeZone, f);
  }
  return f;
}

/** Whether Intl knows the zone (throws no error later). */
export function isTimeZone(timeZone: string): boolean {
  try {
    formatter(timeZone);
    return true;
  } catch {
    return false;
  }
}

/** A 400 naming `param` when a budget's `window.timezone` is a zone Intl does not know (the window could never be worked out). */
export function refuseUnknownTimeZone(budget: unknown, param: string): void {
  const zone = (budget as { window?: { timezone?: unknown } } | null)?.window?.timezone;
  if (typeof zone === 'string' && !isTimeZone(zone))
    throw badRequest(`${param} is not a time zone this gateway knows: ${JSON.stringify(zone.slice(0, 64))} (an IANA name such as Europe/Paris).`, param);
}

/** The local date of `ms` in `timeZone`: year, month (1-12), day. */
export function localDate(ms: number, timeZone: string): { year: number; month: number; day: number } {
  let year = 0;
  let month = 0;
  let day = 0;
  let bc = false;
  for (const part of formatter(timeZone).formatToParts(ms)) {
    if (part.type === 'year') year = Number(part.value);
    else if (part.type === 'month') month = Number(part.value);
    else if (part.type === 'day') day = Number(part.value);
    else if (part.type === 'era') bc = part.value === 'BC' || part.value === 'B';
  }
  return { year: bc ? 1 - year : year, month, day };
}

/** Days since 1970-01-01 of a calendar date (proleptic Gregorian). */
export function dayNumber(year: number, month: number, day: number): number {
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  return Math.floor(d.getTime() / DAY_MS);
}

/** The local day number of `ms` in `timeZone`. */
export function localDay(ms: number, timeZone: string): number {
  const { year, month, day } = localDate(ms, timeZone);
  return dayNumber(year, month, day);
}

/**
 * The first instant (Unix ms) whose local day in `timeZone` is `dayNum`. Local midnight is within
 * ±26 h of the same wall time in UTC; the boundary is found by bisection between those bounds.
 */
export function startOfLocalDay(dayNum: number, timeZone: string): number {
  const wall = dayNum * DAY_MS;
  // Fast path: the zone's offset an hour either side of the guess agrees and midnight exists.
  const guess = wall - offsetAt(wall, timeZone);
  const exact = wall - offsetAt(guess, timeZone);
  if (localDay(exact, timeZone) === dayNum && localDay(exact - 1, timeZone) === dayNum - 1) return exact;
  let lo = wall - 27 * 3_600_000; // local day < dayNum here
  let hi = wall + 27 * 3_600_000; // local day >= dayNum here
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (localDay(mid, timeZone) >= dayNum) hi = mid;
    else lo = mid;
  }
  return hi;
}

const offsetFormatters = new Map<string, Intl.DateTimeFormat>();

/** The zone's offset from UTC at `ms`, in ms (local wall time − UTC), to the minute. */
export function offsetAt(ms: number, timeZone: string): number {
  let f = offsetFormatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      hourCycle: 'h23',
      era: 'short',
    });
    offsetFormatters.set(timeZone, f);
  }
  const p: Record<string, number> = {};
  let bc = false;
  for (const part of f.formatToParts(ms)) {
    if (part.type === 'era') bc = part.value === 'BC' || part.value === 'B';
    else if (part.type !== 'literal') p[part.type] = Number(part.value);
  }
  const d = new Date(0);
  d.setUTCFullYear(bc ? 1 - p.year! : p.year!, p.month! - 1, p.day!);
  d.setUTCHours(p.hour!, p.minute!, p.second!, 0);
  const whole = Math.floor(ms / 1000) * 1000;
  return d.getTime() - whole;
}
