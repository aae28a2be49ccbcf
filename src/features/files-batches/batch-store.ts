import type { SqlStore } from '../../kernel/store/sql-store.js';
import { pageAfter, type Page } from './list-page.js';

export type BatchStatus = 'validating' | 'in_progress' | 'finalizing' | 'completed' | 'failed' | 'cancelling' | 'cancelled';
export const ACTIVE_STATUSES: BatchStatus[] = ['validating', 'in_progress', 'finalizing', 'cancelling'];
export type LineState = 'pending' | 'sending' | 'succeeded' | 'failed';

export interface BatchRow {
  id: string;
  scope: string;
  provider: string;
  endpoint: string;
  input_file_id: string;
  completion_window: string;
  status: BatchStatus;
  metadata: string | null;
  errors: string | null;
  output_file_id: string | null;
  error_file_id: string | null;
  created_ms: number;
  in_progress_at: number | null;
  finalizing_at: number | null;
  completed_at: number | null;
  failed_at: number | null;
  cancelling_at: number | null;
  cancelled_at: number | null;
  expires_at: number | null;
  total_count: number;
  completed_count: number;
  failed_count: number;
  credentials: string | null;
  runner: string | null;
  lease_until: number | null;
}

export interface LineRow {
  batch_id: string;
  line_no: number;
  custom_id: string;
  body: string;
  state: LineState;
  attempts: number;
  waits: number;
  result_id: string | null;
  status_code: number | null;
  request_id: string | null;
  response: string | null;
  error: string | null;
  /** The runner that claimed the line (set while it is `sending`). */
  runner: string | null;
  /** Until when (ms) that claim holds without renewal; a `sending` line past it was interrupted. */
  claimed_until: number | null;
}

/** What one line ended with: the answer's status and body, or an error without an answer. */
export interface LineResult {
  ok: boolean;
  resultId: string;
  statusCode: number | null;
  requestId: string | null;
  /** The answer body as JSON text (the upstream's bytes when they passed through). */
  response: string | null;
  error: { code: string; message: string } | null;
}

const NUMERIC: Array<keyof BatchRow> = [
  'created_ms',
  'in_progress_at',
  'finalizing_at',
  'completed_at',
  'failed_at',
  'cancelling_at',
  'cancelled_at',
  'expires_at',
  'total_count',
  'completed_count',
  'failed_count',
  'lease_until',
];

function normalize(row: BatchRow): BatchRow {
  const out = { ...row } as Record<string, unknown>;
  for (const key of NUMERIC) if (out[key] !== null && out[key] !== undefined) out[key] = Number(out[key]);
  return out as unknown as BatchRow;
}

const now = () => Math.floor(Date.now() / 1000);

/** OpenAI's batch object (the spec's Batch, plus OpenAI's extra timestamps and counts). */
export function batchObject(row: BatchRow) {
  return {
    id: row.id,
    object: 'batch' as const,
    endpoint: row.endpoint,
    errors: row.errors ? JSON.parse(row.errors) : null,
    input_file_id: row.input_file_id,
    completion_window: row.completion_window,
    status: row.status,
    output_file_id: row.output_file_id,
    error_file_id: row.error_file_id,
    created_at: Math.floor(row.created_ms / 1000),
    in_progress_at: row.in_progress_at,
    expires_at: row.expires_at,
    finalizing_at: row.finalizing_at,
    completed_at: row.completed_at,
    failed_at: row.failed_at,
    expired_at: null,
    cancelling_at: row.cancelling_at,
    cancelled_at: row.cancelled_at,
    request_counts: { total: row.total_count, completed: row.completed_count, failed: row.failed_count },
    metadata: row.metadata ? JSON.parse(row.metadata) : null,
  };
}

/** Batches the gateway runs and their lines, durably (every state change is one write). */
export class BatchStore {
  constructor(readonly store: SqlStore) {}

  async create(row: Pick<BatchRow, 'id' | 'scope' | 'provider' | 'endpoint' | 'input_file_id' | 'completion_window' | 'metadata' | 'credentials'>): Promise<BatchRow> {
    const created_ms = Date.now();
    await this.store.execute(
      `INSERT INTO gateway_batches (id, scope, provider, endpoint, input_file_id, completion_window, status, metadata, created_ms, expires_at, credentials)
       VALUES (?, ?, ?, ?, ?, ?, 'validating', ?, ?, ?, ?)`,
      [row.id, row.scope, row.provider, row.endpoint, row.input_file_id, row.completion_window, row.metadata, created_ms, Math.floor(created_ms / 1000) + 86_400, row.credentials],
    );
    return (await this.byId(row.id))!;
  }

  async byId(id: string): Promise<BatchRow | undefined> {
    const rows = await this.store.query<BatchRow>('SELECT * FROM gateway_batches WHERE id = ?', [id]);
    return rows[0] ? normalize(rows[0]) : undefined;
  }

  async get(scope: string, id: string): Promise<BatchRow | undefined> {
    const row = await this.byId(id);
    return row && row.scope === scope ? row : undefined;
  }

  list(scope: string, limit: number, after?: string): Promise<Page<BatchRow>> {
    return pageAfter(this.store, 'gateway_batches', scope, limit, after, normalize);
  }

  async active(): Promise<BatchRow[]> {
    const rows = await this.store.query<BatchRow>(
      `SELECT * FROM gateway_batches WHERE status IN (${ACTIVE_STATUSES.map(() => '?').join(', ')}) ORDER BY created_ms`,
      ACTIVE_STATUSES,
    );
    return rows.map(normalize);
  }

  /** Sets the given columns. */
  async update(id: string, fields: Partial<BatchRow>): Promise<void> {
    const keys = Object.keys(fields) as Array<keyof BatchRow>;
    if (!keys.length) return;
    await this.store.execute(`UPDATE gateway_batches SET ${keys.map((k) => `${k} = ?`).join(', ')} WHERE id = ?`, [...keys.map((k) => fields[k]), id]);
  }

  /** Moves to `status` only from one of `from`; false when another change came first. */
  async transition(id: string, from: BatchStatus[], status: BatchStatus, fields: Partial<BatchRow> = {}): Promise<boolean> {
    const stamp: Partial<BatchRow> = {};
    const t = now();
    if (status === 'in_progress') stamp.in_progress_at = t;
    if (status === 'finalizing') stamp.finalizing_at = t;
    if (status === 'completed') stamp.completed_at = t;
    if (status === 'failed') stamp.failed_at = t;
    if (status === 'cancelling') stamp.cancelling_at = t;
    if (status === 'cancelled') stamp.cancelled_at = t;
    const all = { ...stamp, ...fields, status };
    const keys = Object.keys(all) as Array<keyof BatchRow>;
    const changed = await this.store.execute(
      `UPDATE gateway_batches SET ${keys.map((k) => `${k} = ?`).join(', ')} WHERE id = ? AND status IN (${from.map(() => '?').join(', ')})`,
      [...keys.map((k) => all[k]), id, ...from],
    );
    return changed > 0;
  }

  /**
   * Takes the batch for this runner: free, already its own, or its lease ran out. With SQLite
   * only one process uses the store, so a restarted process takes its batches back at once.
   */
  async claim(id: string, runner: string, leaseMs: number, exclusive: boolean): Promise<boolean> {
    const t = Date.now();
    if (exclusive) return (await this.store.execute('UPDATE gateway_batches SET runner = ?, lease_until = ? WHERE id = ?', [runner, t + leaseMs, id])) > 0;
    const changed = await this.store.execute('UPDATE gateway_batches SET runner = ?, lease_until = ? WHERE id = ? AND (runner IS NULL OR runner = ? OR lease_until < ?)', [
      runner,
      t + leaseMs,
      id,
      runner,
      t,
    ]);
    return changed > 0;
  }

  async release(id: string, runner: string): Promise<void> {
    await this.store.execute('UPDATE gateway_batches SET runner = NULL, lease_until = NULL WHERE id = ? AND runner = ?', [id, runner]);
  }

  async insertLines(batchId: string, lines: Array<{ line_no: number; custom_id: string; body: string }>): Promise<void> {
    await this.store.transaction(async (tx) => {
      for (const line of lines) {
        await tx.execute(`INSERT INTO gateway_batch_lines (batch_id, line_no, custom_id, body, state) VALUES (?, ?, ?, ?, 'pending')`, [
          batchId,
          line.line_no,
          line.custom_id,
          line.body,
        ]);
      }
    });
  }

  async deleteLines(batchId: string): Promise<void> {
    await this.store.execute('DELETE FROM gateway_batch_lines WHERE batch_id = ?', [batchId]);
  }

  async lines(batchId: string, states: LineState[], afterLine: number, limit: number): Promise<LineRow[]> {
    return this.store.query<LineRow>(
      `SELECT * FROM gateway_batch_lines WHERE batch_id = ? AND state IN (${states.map(() => '?').join(', ')}) AND line_no > ? ORDER BY line_no LIMIT ?`,
      [batchId, ...states, afterLine, limit],
    );
  }

  /**
   * Takes up to `limit` pending lines of the batch for `runner`, in input order: each moves to
   * `sending` with the runner's claim, in one statement, so that runners sharing a batch (the
   * workers of a cluster, instances on one PostgreSQL) never take the same line. PostgreSQL skips
   * lines another transaction is claiming (`FOR UPDATE SKIP LOCKED`); SQLite runs one writer at a
   * time, so its single `UPDATE ... RETURNING` is the same claim.
   */
  async claimLines(batchId: string, runner: string, limit: number, leaseMs: number): Promise<LineRow[]> {
    if (limit <= 0) return [];
    const until = Date.now() + leaseMs;
    // PostgreSQL: the picked lines are fixed once in a CTE (a LIMIT subquery inside IN may be
    // evaluated again per row); locked ones are passed over, not waited for.
    const rows =
      this.store.dialect === 'postgres'
        ? await this.store.query<LineRow>(
            `WITH picked AS (
               SELECT line_no FROM gateway_batch_lines WHERE batch_id = ? AND state = 'pending' ORDER BY line_no LIMIT ? FOR UPDATE SKIP LOCKED
             )
             UPDATE gateway_batch_lines AS l SET state = 'sending', attempts = l.attempts + 1, runner = ?, claimed_until = ?
             FROM picked WHERE l.batch_id = ? AND l.line_no = picked.line_no
             RETURNING l.*`,
            [batchId, limit, runner, until, batchId],
          )
        : await this.store.query<LineRow>(
            `UPDATE gateway_batch_lines SET state = 'sending', attempts = attempts + 1, runner = ?, claimed_until = ?
             WHERE batch_id = ? AND state = 'pending' AND line_no IN (
               SELECT line_no FROM gateway_batch_lines WHERE batch_id = ? AND state = 'pending' ORDER BY line_no LIMIT ?
             )
             RETURNING *`,
            [runner, until, batchId, batchId, limit],
          );
    return rows.sort((a, b) => Number(a.line_no) - Number(b.line_no));
  }

  /** Extends the runner's claims on the batch's lines it is still sending. */
  async renewLines(batchId: string, runner: string, leaseMs: number): Promise<void> {
    await this.store.execute(`UPDATE gateway_batch_lines SET claimed_until = ? WHERE batch_id = ? AND runner = ? AND state = 'sending'`, [Date.now() + leaseMs, batchId, runner]);
  }

  /** Lines left `sending` whose claim ran out before `before` (their runner stopped): sent, answer never recorded. */
  lapsedLines(batchId: string, before: number, limit: number): Promise<LineRow[]> {
    return this.store.query<LineRow>(
      `SELECT * FROM gateway_batch_lines WHERE batch_id = ? AND state = 'sending' AND (claimed_until IS NULL OR claimed_until < ?) ORDER BY line_no LIMIT ?`,
      [batchId, before, limit],
    );
  }

  /** A lapsed line goes back to pending (interruptedLines: resend), unless its runner renewed meanwhile. */
  async resendLapsed(line: LineRow, before: number): Promise<boolean> {
    const changed = await this.store.execute(
      `UPDATE gateway_batch_lines SET state = 'pending', runner = NULL, claimed_until = NULL
       WHERE batch_id = ? AND line_no = ? AND state = 'sending' AND COALESCE(runner, '') = ? AND (claimed_until IS NULL OR claimed_until < ?)`,
      [line.batch_id, line.line_no, line.runner ?? '', before],
    );
    return changed > 0;
  }

  /** The upstream refused the line without running it (429): it waits and goes again (any runner may take it). */
  async backToPending(batchId: string, lineNo: number, runner: string): Promise<void> {
    await this.store.execute(
      `UPDATE gateway_batch_lines SET state = 'pending', waits = waits + 1, runner = NULL, claimed_until = NULL WHERE batch_id = ? AND line_no = ? AND state = 'sending' AND runner = ?`,
      [batchId, lineNo, runner],
    );
  }

  /**
   * Records the result of a line `runner` claimed (`null`: one claimed by no runner) and counts
   * it, in one transaction. Nothing changes when the claim is not that runner's any more (it
   * lapsed and the line was settled or taken by another runner). False then.
   */
  async recordResult(batchId: string, lineNo: number, result: LineResult, runner: string | null): Promise<boolean> {
    return this.store.transaction(async (tx) => {
      const changed = await tx.execute(
        `UPDATE gateway_batch_lines SET state = ?, result_id = ?, status_code = ?, request_id = ?, response = ?, error = ?, claimed_until = NULL
         WHERE batch_id = ? AND line_no = ? AND state = 'sending' AND COALESCE(runner, '') = ?`,
        [
          result.ok ? 'succeeded' : 'failed',
          result.resultId,
          result.statusCode,
          result.requestId,
          result.response,
          result.error ? JSON.stringify(result.error) : null,
          batchId,
          lineNo,
          runner ?? '',
        ],
      );
      if (!changed) return false;
      const column = result.ok ? 'completed_count' : 'failed_count';
      await tx.execute(`UPDATE gateway_batches SET ${column} = ${column} + 1 WHERE id = ?`, [batchId]);
      return true;
    });
  }

  /** Lines not finished yet (pending, or being sent by some runner). */
  async unfinishedLines(batchId: string): Promise<number> {
    const rows = await this.store.query<{ n: number }>(`SELECT COUNT(*) AS n FROM gateway_batch_lines WHERE batch_id = ? AND state IN ('pending', 'sending')`, [batchId]);
    return Number(rows[0]?.n ?? 0);
  }

  /** Lines another runner is sending under a claim still running at `now`. */
  async sendingElsewhere(batchId: string, runner: string, now: number): Promise<number> {
    const rows = await this.store.query<{ n: number }>(
      `SELECT COUNT(*) AS n FROM gateway_batch_lines WHERE batch_id = ? AND state = 'sending' AND COALESCE(runner, '') <> ? AND claimed_until >= ?`,
      [batchId, runner, now],
    );
    return Number(rows[0]?.n ?? 0);
  }

  async countLines(batchId: string, state: LineState): Promise<number> {
    const rows = await this.store.query<{ n: number }>('SELECT COUNT(*) AS n FROM gateway_batch_lines WHERE batch_id = ? AND state = ?', [batchId, state]);
    return Number(rows[0]?.n ?? 0);
  }
}
