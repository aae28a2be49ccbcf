import type { SqlExecutor, SqlStore } from '../../../kernel/store/sql-store.js';
import type { BudgetPlan } from './budget-plan.js';

/** A plan's standing: settled spend in its window, plus live reservations. */
export interface Use {
  spentMicros: number;
  spentTokens: number;
  usedMicros: number;
  usedTokens: number;
  /** The oldest bucket of the window holding spend (-1: none). */
  oldest: number;
}

interface Amount {
  micros: number;
  tokens: number;
}

interface Held extends Amount {
  expiresAt: number;
}

/** Ledger writes made through each store object by this process, whichever backend made them. */
const localWrites = new WeakMap<SqlStore, number>();

const marks = (n: number) => Array.from({ length: n }, () => '?').join(', ');
const spendKey = (id: string, series: string, idx: number) => `${id}\n${series}\n${idx}`;
const rangeKey = (id: string, series: string) => `${id}\n${series}`;

/**
 * The budget rows of an embedded (SQLite) ledger, kept in memory between transactions, so a
 * reserve or settle reads nothing while nothing has changed: each transaction first asks the
 * store whether another process has committed since (SQLite's data_version) and whether another
 * backend of this process has written; either drops the mirror, which is then read again in one
 * query. This backend's own writes are applied to the mirror as they are made to the file, in
 * the same transaction; a transaction that fails drops it. Only used inside the store's write
 * transactions (the file's write lock is held, so nothing changes underneath).
 */
export class LedgerMirror {
  private version: number | undefined;
  private writesSeen = -1;
  /** Settled spend per budget, series and bucket (absent: 0). */
  private readonly spend = new Map<string, Amount>();
  /** The buckets of each budget and series read so far (inclusive). */
  private readonly ranges = new Map<string, { from: number; to: number }>();
  /** Reservations per budget id (expired ones included until purged; counting skips them). */
  private readonly held = new Map<string, Map<string, Held>>();

  constructor(private readonly store: SqlStore & { externalVersion(): number }) {}

  static for(store: SqlStore): LedgerMirror | undefined {
    return typeof store.externalVersion === 'function' ? new LedgerMirror(store as SqlStore & { externalVersion(): number }) : undefined;
  }

  /** Forgets everything (the next transaction reads again). */
  clear(): void {
    this.spend.clear();
    this.ranges.clear();
    this.held.clear();
    this.version = undefined;
  }

  /** Runs one ledger transaction's body against the mirror: synced first, dropped if it throws. */
  async within<T>(tx: SqlExecutor, plans: readonly BudgetPlan[], work: () => Promise<T>): Promise<T> {
    try {
      const version = this.store.externalVersion();
      const writes = localWrites.get(this.store) ?? 0;
      if (version !== this.version || writes !== this.writesSeen) {
        this.clear();
        this.version = version;
        this.writesSeen = writes;
      }
      await this.load(tx, plans);
      const result = await work();
      return result;
    } catch (err) {
      this.clear();
      throw err;
    }
  }

  /** Records that this backend wrote (other backends on the store read again). */
  wrote(): void {
    const writes = (localWrites.get(this.store) ?? 0) + 1;
    localWrites.set(this.store, writes);
    this.writesSeen = writes;
  }

  /** Reads, in one query, the buckets and reservations the plans need that are not held yet. */
  private async load(tx: SqlExecutor, plans: readonly BudgetPlan[]): Promise<void> {
    const wanted: Array<{ id: string; series: string; from: number; to: number }> = [];
    for (const p of plans) {
      const have = this.ranges.get(rangeKey(p.id, p.series));
      if (have && have.from <= p.from && have.to >= p.to) continue;
      // Read the union, so each budget and series keeps one contiguous range.
      wanted.push({ id: p.id, series: p.series, from: have ? Math.min(have.from, p.from) : p.from, to: have ? Math.max(have.to, p.to) : p.to });
    }
    const ids = [...new Set(plans.map((p) => p.id))].filter((id) => !this.held.has(id));
    if (!wanted.length && !ids.length) return;
    const parts: string[] = [];
    const params: unknown[] = [];
    if (wanted.length) {
      parts.push(
        `SELECT budget_id, series, idx, micros, tokens, NULL AS reservation_id FROM gateway_budget_spend WHERE ${wanted.map(() => '(budget_id = ? AND series = ? AND idx BETWEEN ? AND ?)').join(' OR ')}`,
      );
      params.push(...wanted.flatMap((w) => [w.id, w.series, w.from, w.to]));
    }
    if (ids.length) {
      parts.push(`SELECT budget_id, NULL AS series, expires_at AS idx, micros, tokens, reservation_id FROM gateway_budget_reservations WHERE budget_id IN (${marks(ids.length)})`);
      params.push(...ids);
    }
    const rows = await tx.query<{
      budget_id: string;
      series: string | null;
      idx: number | string;
      micros: number | string;
      tokens: number | string;
      reservation_id: string | null;
    }>(parts.join(' UNION ALL '), params);
    for (const w of wanted) {
      // Rows absent from the answer are zero: forget what was held for the range before.
      for (let i = w.from; i <= w.to; i++) this.spend.delete(spendKey(w.id, w.series, i));
      this.ranges.set(rangeKey(w.id, w.series), { from: w.from, to: w.to });
    }
    for (const id of ids) this.held.set(id, new Map());
    for (const row of rows) {
      if (row.reservation_id !== null) {
        this.held.get(row.budget_id)?.set(row.reservation_id, { micros: Number(row.micros), tokens: Number(row.tokens), expiresAt: Number(row.idx) });
      } else {
        this.spend.set(spendKey(row.budget_id, row.series!, Number(row.idx)), { micros: Number(row.micros), tokens: Number(row.tokens) });
      }
    }
  }

  /** Each plan's settled spend in its window and its live reservations (as the SQL would count them). */
  use(plans: readonly BudgetPlan[], clockMs: number): Use[] {
    return plans.map((p) => {
      const u: Use = { spentMicros: 0, spentTokens: 0, usedMicros: 0, usedTokens: 0, oldest: -1 };
      for (let i = p.from; i <= p.to; i++) {
        const row = this.spend.get(spendKey(p.id, p.series, i));
        if (!row) continue;
        u.spentMicros += row.micros;
        u.spentTokens += row.tokens;
        if ((row.micros > 0 || row.tokens > 0) && u.oldest < 0) u.oldest = i;
      }
      for (const h of this.held.get(p.id)?.values() ?? []) {
        if (h.expiresAt <= clockMs) continue;
        u.usedMicros += h.micros;
        u.usedTokens += h.tokens;
      }
      u.usedMicros += u.spentMicros;
      u.usedTokens += u.spentTokens;
      return u;
    });
  }

  reserved(ids: readonly string[], reservationId: string, amount: Amount, expiresAt: number): void {
    for (const id of ids) this.held.get(id)?.set(reservationId, { micros: amount.micros, tokens: amount.tokens, expiresAt });
  }

  released(reservationId: string): void {
    for (const byId of this.held.values()) byId.delete(reservationId);
  }

  purged(ids: readonly string[], clockMs: number): void {
    for (const id of ids) {
      const byId = this.held.get(id);
      if (!byId) continue;
      for (const [rid, h] of byId) if (h.expiresAt <= clockMs) byId.delete(rid);
    }
  }

  settled(id: string, series: string, idx: number, amount: Amount): void {
    const range = this.ranges.get(rangeKey(id, series));
    if (!range || idx < range.from || idx > range.to) return;
    const key = spendKey(id, series, idx);
    const row = this.spend.get(key);
    this.spend.set(key, { micros: (row?.micros ?? 0) + amount.micros, tokens: (row?.tokens ?? 0) + amount.tokens });
  }

  extended(reservationIds: readonly string[], expiresAt: number): void {
    const wanted = new Set(reservationIds);
    for (const byId of this.held.values()) {
      for (const [rid, h] of byId) if (wanted.has(rid) && h.expiresAt < expiresAt) h.expiresAt = expiresAt;
    }
  }
}
