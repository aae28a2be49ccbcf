import { timeOrderedUuid } from '../../../kernel/time-ordered-id.js';
import type { Migration, SqlStatement, SqlStore } from '../../../kernel/store/sql-store.js';
import type { UsagePart, UsageRow } from '../governance-types.js';

/**
 * The usage ledger's tables: `gateway_usage`, one row per request made with a gateway key (a
 * tool loop too: its row carries the request's final status and the sums of all its calls), and
 * `gateway_usage_parts`, the parts of a request (a tool loop's model and tool calls, in the order
 * they ended) under its request id. `at` is Unix milliseconds; money in whole microdollars (null:
 * unpriced). The indexes serve the usage report (a time range grouped by one column), the
 * request list (newest first, by key or team) and the lookup of one request.
 * `gateway_usage.parent_request_id` (migration 002) is no longer written: the parts of a
 * request live in `gateway_usage_parts`.
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
  {
    // the parts of a request (a tool loop's model and tool calls) under its one row
    id: 'governance-usage-004-parts',
    statements: [
      `CREATE TABLE gateway_usage_parts (
        id TEXT PRIMARY KEY,
        request_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        kind TEXT NOT NULL,
        provider TEXT,
        model TEXT,
        server TEXT,
        tool TEXT,
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
        at BIGINT NOT NULL
      )`,
      'CREATE INDEX gateway_usage_parts_request ON gateway_usage_parts (request_id, seq)',
      // parent_request_id is no longer written: its index is not kept up for nothing
      'DROP INDEX IF EXISTS gateway_usage_parent',
    ],
  },
  {
    // No query reads rows by user: the report groups the rows of a time range (gateway_usage_at),
    // the request list filters by key, team, model or provider. Every row paid for this index.
    id: 'governance-usage-005-no-user-index',
    statements: ['DROP INDEX IF EXISTS gateway_usage_user_at'],
  },
];

/** The token classes as columns, one per class (both tables; summed by the usage report), in tokenValues' order. */
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
  ...TOKEN_COLUMNS,
  'cost_micros',
  'price_source',
  'status',
  'latency_ms',
  'estimated',
  'unverified',
  'attempts',
] as const;

export const PART_COLUMNS = [
  'id',
  'request_id',
  'seq',
  'kind',
  'provider',
  'model',
  'server',
  'tool',
  ...TOKEN_COLUMNS,
  'cost_micros',
  'price_source',
  'status',
  'latency_ms',
  'estimated',
  'at',
] as const;

/**
 * Appends a row's values, in USAGE_COLUMNS' order, to `out` (one array binds a whole batch; what a
 * row lacks is NULL, so nothing is copied to bind it). Appended, never written ahead of its end:
 * the array stays packed, which the writer thread's message needs (V8 serializes an array with
 * holes element by element as a sparse object, about three times slower, and the thread gets a
 * dictionary-mode array back).
 */
function pushValues(out: unknown[], row: StoredRow): void {
  const u = row.usage;
  out.push(
    row.id,
    row.requestId,
    row.at,
    row.keyId ?? null,
    textColumn(row.user),
    textColumn(row.team),
    textColumn(row.organization),
    textColumn(row.customer),
    textColumn(row.route),
    textColumn(row.provider),
    textColumn(row.model),
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
    row.costMicros ?? null,
    textColumn(row.priceSource),
    row.status,
    Math.round(row.latencyMs),
    row.estimated ? 1 : 0,
    row.unverified ? 1 : 0,
    row.attempts?.length ? JSON.stringify(row.attempts) : null,
  );
}

/**
 * A text column's value: what a row names that a caller or a tool server chose (a model, a
 * customer, a tool) with any NUL as U+FFFD, which PostgreSQL's text cannot hold: one such row
 * would fail its whole batch at every retry, and the ledger would stop.
 */
function textColumn(value: string | null | undefined): string | null {
  if (value === undefined || value === null) return null;
  return value.includes('\0') ? value.replaceAll('\0', '\uFFFD') : value;
}

/** A usage's token classes in TOKEN_COLUMNS' order. */
function tokenValues(u: UsageRow['usage']): unknown[] {
  return [u.input, u.cacheRead, u.cacheWrite, u.output, u.reasoning, u.inputAudio, u.outputAudio, u.images, u.audioSeconds, u.characters];
}

function partValues(requestId: string, part: StoredPart): unknown[] {
  return [
    part.id,
    requestId,
    part.seq,
    part.kind,
    textColumn(part.provider),
    textColumn(part.model),
    textColumn(part.server),
    textColumn(part.tool),
    ...tokenValues(part.usage),
    part.costMicros,
    part.priceSource,
    part.status,
    Math.round(part.latencyMs),
    part.estimated ? 1 : 0,
    part.at,
  ];
}

/** A part with the id it is stored under. */
export type StoredPart = UsagePart & { id: string };

/** A row with the id it is stored under (a retried batch writes each row once), and its parts with theirs. */
export type StoredRow = Omit<UsageRow, 'parts'> & { id: string; parts?: StoredPart[] };

/** Parts recorded after their request's row (a tool call that ended after the loop's answer). */
export interface StoredParts {
  partsOf: string;
  parts: StoredPart[];
}

/** What the ledger's buffer holds: rows (with their parts) and late parts. */
export type StoredEntry = StoredRow | StoredParts;

export function isParts(entry: StoredEntry): entry is StoredParts {
  return 'partsOf' in entry;
}

export function withPartIds(parts: readonly UsagePart[]): StoredPart[] {
  return parts.map((p) => ({ ...p, id: timeOrderedUuid() }));
}

/** The row as stored: the ledger owns what it is given, so its id (and its parts' ids) are set on it rather than on a copy. */
export function withRowId(row: UsageRow): StoredRow {
  const stored = row as StoredRow;
  stored.id = timeOrderedUuid();
  if (row.parts?.length) stored.parts = withPartIds(row.parts);
  else delete stored.parts;
  return stored;
}

/** Parts per INSERT (24 parameters each: well under SQLite's and PostgreSQL's limits). */
const PARTS_PER_INSERT = 500;

/**
 * A batch's statements: its rows in one multi-row INSERT into gateway_usage and, when any row
 * has parts (or late parts are in the batch), INSERTs of the parts, to be run in one
 * transaction so that a request's row and its parts land together. Rows and parts already
 * written (a retry) are skipped.
 */
export function usageStatements(entries: readonly StoredEntry[]): SqlStatement[] {
  const rows: StoredRow[] = [];
  const parts: Array<[string, StoredPart]> = [];
  for (const e of entries) {
    if (isParts(e)) for (const p of e.parts) parts.push([e.partsOf, p]);
    else {
      rows.push(e);
      for (const p of e.parts ?? []) parts.push([e.requestId, p]);
    }
  }
  const statements: SqlStatement[] = [];
  if (rows.length) statements.push(rowsInsert(rows));
  for (let i = 0; i < parts.length; i += PARTS_PER_INSERT) statements.push(partsInsert(parts.slice(i, i + PARTS_PER_INSERT)));
  return statements;
}

/** Writes a batch through the store (see usageStatements): one statement alone, several in one transaction. */
export async function insertUsageRows(store: SqlStore, entries: readonly StoredEntry[]): Promise<void> {
  const statements = usageStatements(entries);
  if (statements.length === 0) return;
  if (statements.length === 1) {
    await store.execute(...statements[0]!);
    return;
  }
  await store.transaction(async (tx) => {
    for (const [sql, params] of statements) await tx.execute(sql, params);
  });
}

/** The multi-row INSERT of n rows, made once per n (a batch is usually the ledger's batch size). */
const rowInserts = new Map<number, string>();
const ONE_ROW = `(${USAGE_COLUMNS.map(() => '?').join(', ')})`;

function rowInsert(n: number): string {
  let sql = rowInserts.get(n);
  if (sql === undefined) {
    sql = `INSERT INTO gateway_usage (${USAGE_COLUMNS.join(', ')}) VALUES ${new Array<string>(n).fill(ONE_ROW).join(', ')} ON CONFLICT (id) DO NOTHING`;
    if (rowInserts.size < 1024) rowInserts.set(n, sql);
  }
  return sql;
}

function rowsInsert(rows: readonly StoredRow[]): SqlStatement {
  const params: unknown[] = [];
  for (const row of rows) pushValues(params, row);
  return [rowInsert(rows.length), params];
}

function partsInsert(parts: ReadonlyArray<[string, StoredPart]>): SqlStatement {
  const one = `(${PART_COLUMNS.map(() => '?').join(', ')})`;
  const sql = `INSERT INTO gateway_usage_parts (${PART_COLUMNS.join(', ')}) VALUES ${parts.map(() => one).join(', ')} ON CONFLICT (id) DO NOTHING`;
  return [sql, parts.flatMap(([requestId, part]) => partValues(requestId, part))];
}
