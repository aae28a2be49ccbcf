import type { SqlStore } from '../../../kernel/store/sql-store.js';
import { TOKEN_COLUMNS } from './usage-store.js';

/** What the usage report groups by, and the column each names. */
export const GROUP_COLUMNS = {
  key: 'key_id',
  user: 'user_id',
  team: 'team',
  organization: 'organization',
  customer: 'customer',
  model: 'model',
  provider: 'provider',
} as const;
export type GroupBy = keyof typeof GROUP_COLUMNS;

const INTERVAL_MS = { hour: 3_600_000, day: 86_400_000 } as const;
export type Interval = keyof typeof INTERVAL_MS;

export interface UsageQuery {
  groupBy?: GroupBy;
  /** Unix ms, inclusive. */
  from: number;
  /** Unix ms, exclusive. */
  to: number;
  interval?: Interval;
  /** Only this team's requests (a team_admin's report). */
  team?: string;
}

/** One line of the report: the group (and time bucket) and its sums. */
export interface UsageReportLine {
  group?: string | null;
  /** Start of the bucket, ISO 8601 (UTC). */
  period?: string;
  /** Requests (a tool loop is one request: its calls are its parts). */
  requests: number;
  input_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  output_tokens: number;
  reasoning_tokens: number;
  input_audio_tokens: number;
  output_audio_tokens: number;
  images: number;
  audio_seconds: number;
  characters: number;
  /** US dollars (decimal string of the summed microdollars). */
  cost_usd: string;
  cost_micros: number;
  /** Requests with no price (not in cost). */
  unpriced_requests: number;
  estimated_requests: number;
}

/**
 * Sums the usage ledger over [from, to): requests, every token class and cost, per group
 * and/or per hour or day (UTC). One SQL statement, the same on SQLite and PostgreSQL.
 */
export async function usageReport(store: SqlStore, query: UsageQuery, usd: (micros: number) => string): Promise<UsageReportLine[]> {
  const keys: string[] = [];
  if (query.groupBy) keys.push(`${GROUP_COLUMNS[query.groupBy]} AS grp`);
  if (query.interval) keys.push(`(at - (at % ${INTERVAL_MS[query.interval]})) AS bucket`);
  const sums = TOKEN_COLUMNS.map((c) => `SUM(${c}) AS ${c}`).join(', ');
  // one row per request (a tool loop's row carries the sums of its model and tool calls, its parts are in gateway_usage_parts)
  const groupBy = [query.groupBy ? 'grp' : '', query.interval ? 'bucket' : ''].filter(Boolean).join(', ');
  const sql =
    `SELECT ${[...keys, 'COUNT(*) AS requests', sums, 'SUM(cost_micros) AS cost_micros', 'SUM(CASE WHEN cost_micros IS NULL THEN 1 ELSE 0 END) AS unpriced', 'SUM(CASE WHEN estimated <> 0 THEN 1 ELSE 0 END) AS estimated'].join(', ')}` +
    ` FROM gateway_usage WHERE at >= ? AND at < ?` +
    (query.team !== undefined ? ' AND team = ?' : '') +
    (groupBy ? ` GROUP BY ${groupBy} ORDER BY ${groupBy}` : '');
  const rows = await store.query<Record<string, unknown>>(sql, query.team !== undefined ? [query.from, query.to, query.team] : [query.from, query.to]);
  return rows
    .filter((r) => Number(r.requests) > 0)
    .map((r) => {
      const line: UsageReportLine = {
        requests: Number(r.requests),
        ...(Object.fromEntries(TOKEN_COLUMNS.map((c) => [c, Number(r[c] ?? 0)])) as Record<(typeof TOKEN_COLUMNS)[number], number>),
        cost_micros: Number(r.cost_micros ?? 0),
        cost_usd: usd(Number(r.cost_micros ?? 0)),
        unpriced_requests: Number(r.unpriced ?? 0),
        estimated_requests: Number(r.estimated ?? 0),
      };
      const head: Partial<UsageReportLine> = {};
      if (query.groupBy) head.group = (r.grp as string | null) ?? null;
      if (query.interval) head.period = new Date(Number(r.bucket)).toISOString();
      return { ...head, ...line };
    });
}

const CSV_COLUMNS = ['group', 'period', 'requests', ...TOKEN_COLUMNS, 'cost_usd', 'unpriced_requests', 'estimated_requests'] as const;

function csvCell(value: unknown): string {
  if (value === undefined || value === null) return '';
  const text = String(value);
  // Quoted when needed; a leading =, +, - or @ is prefixed so spreadsheets do not run it as a formula.
  const safe = /^[=+\-@\t\r]/.test(text) && !/^-?\d/.test(text) ? `'${text}` : text;
  return /[",\n\r]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** The report as CSV (header line first); `group`/`period` columns only when asked for. */
export function usageCsv(lines: readonly UsageReportLine[], query: UsageQuery): string {
  const columns = CSV_COLUMNS.filter((c) => (c === 'group' ? query.groupBy !== undefined : c === 'period' ? query.interval !== undefined : true));
  const header = columns.map((c) => (c === 'group' ? query.groupBy! : c)).join(',');
  const body = lines.map((line) => columns.map((c) => csvCell((line as unknown as Record<string, unknown>)[c])).join(','));
  return [header, ...body].join('\n') + '\n';
}
