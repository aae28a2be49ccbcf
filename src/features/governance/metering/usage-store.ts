import { randomUUID } from 'node:crypto';
import type { Migration, SqlStore } from '../../../kernel/store/sql-store.js';
import type { UsageRow } from '../governance-types.js';

/**
 * The usage ledger's table: one row per request made with a gateway key (a tool loop: one row
 * per model call and per tool call, each naming the loop's request in parent_request_id). `at` is Unix
 * milliseconds; money in whole microdollars (null: unpriced). The indexes serve the usage
 * report: a time range grouped by one column, each index carrying the columns summed so the
 * query reads the index alone on PostgreSQL.
 */
export const USAGE_MIGRATIONS: Migration[] = [
  {
    id: 'governance-usage-001-create',
    statements: [
      `CREATE TABLE gateway_usage (
        id TEXT PRIMARY KEY,
        request_id TEXT NOT NULL,
        at BIGINT NOT NULL,
        key_id TEXT,
        user_id TEXT,
        team TEXT,
        organization TEXT,
        customer TEXT,
        route TEXT NOT NULL,
        provider TEXT,
        model TEXT,
        input_tokens BIGINT NOT NULL,
        cache_read_tokens BIGINT NOT NULL,
        cache_write_tokens BIGINT NOT NULL,
        output_tokens BIGINT NOT NULL,
        reasoning_tokens BIGINT NOT NULL,
        input_audio_tokens BIGINT NOT NULL,
        output_audio_tokens BIGINT NOT NULL,
        images BIGINT NOT NULL,
        audio_seconds BIGINT NOT NULL,
        characters BIGINT NOT NULL,
        cost_micros BIGINT,
        price_source TEXT,
        status INTEGER NOT NULL,
        latency_ms INTEGER NOT NULL,
        estimated INTEGER NOT NULL,
        unverified INTEGER NOT NULL
      )`,
      'CREATE INDEX gateway_usage_at ON gateway_usage (at)',
      'CREATE INDEX gateway_usage_team_at ON gateway_usage (team, at)',
      'CREATE INDEX gateway_usage_key_at ON gateway_usage (key_id, at)',
      'CREATE INDEX gateway_usage_user_at ON gateway_usage (user_id, at)',
      'CREATE INDEX gateway_usage_request ON gateway_usage (request_id)',
    ],
  },
  {
    // the parts of a request (a tool loop's model and tool calls) name it
    id: 'governance-usage-002-parent-request',
    statements: ['ALTER TABLE gateway_usage ADD COLUMN parent_request_id TEXT', 'CREATE INDEX gateway_usage_parent ON gateway_usage (parent_request_id)'],
  },
  {
    // the upstream attempts of the request (JSON: provider, target, status, latency, error type)
    id: 'governance-usage-003-attempts',
    statements: ['ALTER TABLE gateway_usage ADD COLUMN attempts TEXT'],
  },
];

export const USAGE_COLUMNS = [
  'id',
  'request_id',
  'at',
  'key_id',
  'user_id',
  'team',
  'organization',
  'customer',
  'route',
  'provider',
  'model',
  'input_tokens',
  'cache_read_tokens',
  'cache_write_tokens',
  'output_tokens',
  'reasoning_tokens',
  'input_audio_tokens',
  'output_audio_tokens',
  'images',
  'audio_seconds',
  'characters',
  'cost_micros',
  'price_source',
  'status',
  'latency_ms',
  'estimated',
  'unverified',
  'parent_request_id',
  'attempts',
] as const;

/** The token classes as report columns (summed by the usage report). */
export const TOKEN_COLUMNS = [
  'input_tokens',
  'cache_read_tokens',
  'cache_write_tokens',
  'output_tokens',
  'reasoning_tokens',
  'input_audio_tokens',
  'output_audio_tokens',
  'images',
  'audio_seconds',
  'characters',
] as const;

function values(row: UsageRow & { id: string }): unknown[] {
  const u = row.usage;
  return [
    row.id,
    row.requestId,
    row.at,
    row.keyId,
    row.user,
    row.team,
    row.organization,
    row.customer,
    row.route,
    row.provider,
    row.model,
    u.input,
    u.cacheRead,
    u.cacheWrite,
    u.output,
    u.reasoning,
    u.inputAudio,
    u.outputAudio,
    u.images,
    u.audioSeconds,
    u.characters,
    row.costMicros,
    row.priceSource,
    row.status,
    Math.round(row.latencyMs),
    row.estimated ? 1 : 0,
    row.unverified ? 1 : 0,
    row.parentRequestId ?? null,
    row.attempts?.length ? JSON.stringify(row.attempts) : null,
  ];
}

/** A row with the id it is stored under (a retried batch writes each row once). */
export type StoredRow = UsageRow & { id: string };

export function withRowId(row: UsageRow): StoredRow {
  return { ...row, id: randomUUID() };
}

/** Writes rows in one multi-row INSERT; rows already written (a retry) are skipped. */
export async function insertUsageRows(store: SqlStore, rows: readonly StoredRow[]): Promise<void> {
  if (rows.length === 0) return;
  const one = `(${USAGE_COLUMNS.map(() => '?').join(', ')})`;
  const sql = `INSERT INTO gateway_usage (${USAGE_COLUMNS.join(', ')}) VALUES ${rows.map(() => one).join(', ')} ON CONFLICT (id) DO NOTHING`;
  await store.execute(sql, rows.flatMap(values));
}
