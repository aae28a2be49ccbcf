import type { SqlExecutor, SqlStore } from '../../../kernel/store/sql-store.js';
import type { Reservation } from '../governance-types.js';
import type { BudgetPlan } from './budget-plan.js';
import type { BackendReserve, BackendSettle, BackendSpent, LedgerBackend, SettledAlert } from './ledger-backend.js';
import { ensureLedgerFunctions, RESERVE_FUNCTION, SETTLE_FUNCTION } from './postgres-ledger-functions.js';
import { LedgerMirror, type Use } from './sqlite-ledger-mirror.js';

/** How long a settled reservation id is remembered, and how often (in settles) older ones are swept. */
const SETTLED_KEPT_MS = 86_400_000;
const SWEEP_EVERY = 1000;
/**
 * How often (in reserves) expired reservations are purged. Counting never needs the purge
 * (expired ones are filtered out); it only keeps the table from holding the leftovers of
 * instances that died, so it need not cost every request a statement.
 */
const PURGE_EVERY = 256;

const marks = (n: number) => Array.from({ length: n }, () => '?').join(', ');

const numbers = (values: ReadonlyArray<number | string>) => values.map(Number);

/**
 * The ledger in one SQL transaction per reserve or settle: PostgreSQL (several instances, without
 * Redis) or SQLite (one instance; workers share the file). On PostgreSQL each is one call of a
 * function in the store's schema (postgres-ledger-functions.ts: advisory locks per budget taken
 * in hash order inside the server, no WAL flush waited for); SQLite's transactions start with
 * BEGIN IMMEDIATE (the file's write lock).
 */
export class SqlLedgerBackend implements LedgerBackend {
  private settles = 0;
  private reserves = 0;
  private functions: Promise<void> | undefined;

  /** SQLite: the budget rows kept in memory while no other process writes (sqlite-ledger-mirror.ts). */
  private readonly mirror: LedgerMirror | undefined;

  constructor(private readonly store: SqlStore) {
    this.mirror = LedgerMirror.for(store);
  }

  /**
   * One SQLite write transaction of the ledger; `count` answers each plan's use (from the mirror
   * when it holds the rows, else by query). A transaction that fails, or whose commit fails,
   * leaves the mirror empty.
   */
  private async inTransaction<T>(plans: readonly BudgetPlan[], work: (tx: SqlExecutor, count: (clockMs: number) => Promise<Use[]>) => Promise<T>): Promise<T> {
    const mirror = this.mirror;
    try {
      return await this.store.transaction((tx) =>
        mirror ? mirror.within(tx, plans, () => work(tx, async (clockMs) => mirror.use(plans, clockMs))) : work(tx, (clockMs) => this.use(tx, plans, clockMs)),
      );
    } catch (err) {
      mirror?.clear();
      throw err;
    }
  }

  /** PostgreSQL: the ledger's functions exist (created once per process, on first use). */
  private postgresReady(): Promise<void> {
    this.functions ??= ensureLedgerFunctions(this.store).catch((err: unknown) => {
      this.functions = undefined;
      throw err;
    });
    return this.functions;
  }

  /**
   * Each plan's settled spend in its window and its live reservations (expired ones not counted).
   */
  private async use(tx: SqlExecutor, plans: readonly BudgetPlan[], clockMs: number): Promise<Use[]> {
    const where = plans.map(() => '(budget_id = ? AND series = ? AND idx BETWEEN ? AND ?)').join(' OR ');
    const params: unknown[] = plans.flatMap((p) => [p.id, p.series, p.from, p.to]);
    const ids = [...new Set(plans.map((p) => p.id))];
    const rows = await tx.query<{ budget_id: string; series: string | null; idx: number | string | null; micros: number | string; tokens: number | string }>(
      `SELECT budget_id, series, idx, micros, tokens FROM gateway_budget_spend WHERE ${where}
       UNION ALL
       SELECT budget_id, NULL, NULL, SUM(micros), SUM(tokens) FROM gateway_budget_reservations
       WHERE budget_id IN (${marks(ids.length)}) AND expires_at > ? GROUP BY budget_id`,
      [...params, ...ids, clockMs],
    );
    return plans.map((p) => {
      const u: Use = { spentMicros: 0, spentTokens: 0, usedMicros: 0, usedTokens: 0, oldest: -1 };
      for (const row of rows) {
        if (row.budget_id !== p.id) continue;
        const micros = Number(row.micros);
        const tokens = Number(row.tokens);
        if (row.series === null) {
          u.usedMicros += micros;
          u.usedTokens += tokens;
          continue;
        }
        const idx = Number(row.idx);
        if (row.series !== p.series || idx < p.from || idx > p.to) continue;
        u.spentMicros += micros;
        u.spentTokens += tokens;
        if ((micros > 0 || tokens > 0) && (u.oldest < 0 || idx < u.oldest)) u.oldest = idx;
      }
      u.usedMicros += u.spentMicros;
      u.usedTokens += u.spentTokens;
      return u;
    });
  }

  async reserve(plans: readonly BudgetPlan[], r: Reservation, expiresAt: number, clockMs: number): Promise<BackendReserve> {
    if (this.store.dialect === 'postgres') {
      await this.postgresReady();
      const [row] = await this.store.query<{ refused: number; oldest: string | number; used_micros: Array<string | number> | null }>(
        `SELECT refused, oldest, used_micros FROM ${RESERVE_FUNCTION}(?::text[], ?::text[], ?::bigint[], ?::bigint[], ?::boolean[], ?::bigint[], ?::bigint[], ?, ?, ?, ?, ?)`,
        [
          plans.map((p) => p.id),
          plans.map((p) => p.series),
          plans.map((p) => p.from),
          plans.map((p) => p.to),
          plans.map((p) => p.block),
          plans.map((p) => p.limitMicros),
          plans.map((p) => p.limitTokens),
          r.id,
          r.micros,
          r.tokens,
          expiresAt,
          clockMs,
        ],
      );
      if (row!.refused >= 0) return { ok: false, index: row!.refused, oldest: Number(row!.oldest) };
      return { ok: true, usedMicros: numbers(row!.used_micros ?? []) };
    }
    const purge = ++this.reserves % PURGE_EVERY === 0;
    const ids = [...new Set(plans.map((p) => p.id))];
    return this.inTransaction(plans, async (tx, count) => {
      if (purge) {
        await tx.execute(`DELETE FROM gateway_budget_reservations WHERE budget_id IN (${marks(ids.length)}) AND expires_at <= ?`, [...ids, clockMs]);
        this.mirror?.purged(ids, clockMs);
        this.mirror?.wrote();
      }
      const uses = await count(clockMs);
      for (let i = 0; i < plans.length; i++) {
        const p = plans[i]!;
        const u = uses[i]!;
        if (!p.block) continue;
        if ((p.limitMicros !== null && u.usedMicros + r.micros > p.limitMicros) || (p.limitTokens !== null && u.usedTokens + r.tokens > p.limitTokens)) {
          return { ok: false, index: i, oldest: u.oldest };
        }
      }
      await tx.execute(
        `INSERT INTO gateway_budget_reservations (budget_id, reservation_id, micros, tokens, expires_at) VALUES ${ids.map(() => '(?, ?, ?, ?, ?)').join(', ')}`,
        ids.flatMap((id) => [id, r.id, r.micros, r.tokens, expiresAt]),
      );
      this.mirror?.reserved(ids, r.id, r, expiresAt);
      this.mirror?.wrote();
      return { ok: true, usedMicros: uses.map((u) => u.usedMicros) };
    });
  }

  async settle(plans: readonly BudgetPlan[], reservationId: string, actual: { micros: number; tokens: number }, clockMs: number): Promise<BackendSettle> {
    const sweep = ++this.settles % SWEEP_EVERY === 0;
    if (this.store.dialect === 'postgres') return this.settlePostgres(plans, reservationId, actual, clockMs, sweep);
    return this.inTransaction(plans, async (tx, count) => {
      if (sweep) await tx.execute('DELETE FROM gateway_budget_settled WHERE settled_at < ?', [clockMs - SETTLED_KEPT_MS]);
      const first = await tx.execute('INSERT INTO gateway_budget_settled (reservation_id, settled_at) VALUES (?, ?) ON CONFLICT (reservation_id) DO NOTHING', [
        reservationId,
        clockMs,
      ]);
      // Settled before (a settle tried again whose first try landed): nothing more to add.
      if (!first) return { usedMicros: (await count(clockMs)).map((u) => u.usedMicros), alerts: [] };
      if (actual.micros > 0 || actual.tokens > 0) {
        const windows = [...new Map(plans.map((p) => [`${p.id}\n${p.series}\n${p.to}`, p])).values()];
        await tx.execute(
          `INSERT INTO gateway_budget_spend (budget_id, series, idx, micros, tokens) VALUES ${windows.map(() => '(?, ?, ?, ?, ?)').join(', ')}
           ON CONFLICT (budget_id, series, idx) DO UPDATE SET micros = gateway_budget_spend.micros + excluded.micros, tokens = gateway_budget_spend.tokens + excluded.tokens`,
          windows.flatMap((p) => [p.id, p.series, p.to, actual.micros, actual.tokens]),
        );
        for (const p of windows) this.mirror?.settled(p.id, p.series, p.to, actual);
      }
      await tx.execute('DELETE FROM gateway_budget_reservations WHERE reservation_id = ?', [reservationId]);
      this.mirror?.released(reservationId);
      this.mirror?.wrote();
      const uses = await count(clockMs);
      const alerts: SettledAlert[] = [];
      for (let i = 0; i < plans.length; i++) {
        const p = plans[i]!;
        if (!p.alerts.length) continue;
        const u = uses[i]!;
        const after = p.limitMicros !== null ? u.spentMicros : u.spentTokens;
        const before = after - (p.limitMicros !== null ? actual.micros : actual.tokens);
        for (const { percent, level } of p.alerts) {
          if (before >= level || after < level) continue;
          const inserted = await tx.execute(
            'INSERT INTO gateway_budget_alerts (budget_id, series, idx, percent, sent_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (budget_id, series, idx, percent) DO NOTHING',
            [p.id, p.series, p.alertWindow, percent, Math.floor(clockMs / 1000)],
          );
          if (inserted > 0) alerts.push({ index: i, percent, spentMicros: u.spentMicros, spentTokens: u.spentTokens });
        }
      }
      return { usedMicros: uses.map((u) => u.usedMicros), alerts };
    });
  }

  private async settlePostgres(
    plans: readonly BudgetPlan[],
    reservationId: string,
    actual: { micros: number; tokens: number },
    clockMs: number,
    sweep: boolean,
  ): Promise<BackendSettle> {
    await this.postgresReady();
    const [row] = await this.store.query<{ first: boolean; spent_micros: Array<string | number>; spent_tokens: Array<string | number>; used_micros: Array<string | number> }>(
      `SELECT first, spent_micros, spent_tokens, used_micros FROM ${SETTLE_FUNCTION}(?::text[], ?::text[], ?::bigint[], ?::bigint[], ?, ?, ?, ?, ?)`,
      [
        plans.map((p) => p.id),
        plans.map((p) => p.series),
        plans.map((p) => p.from),
        plans.map((p) => p.to),
        reservationId,
        actual.micros,
        actual.tokens,
        clockMs,
        sweep ? clockMs - SETTLED_KEPT_MS : null,
      ],
    );
    const usedMicros = numbers(row!.used_micros);
    if (!row!.first) return { usedMicros, alerts: [] };
    const spentMicros = numbers(row!.spent_micros);
    const spentTokens = numbers(row!.spent_tokens);
    const alerts: SettledAlert[] = [];
    for (let i = 0; i < plans.length; i++) {
      const p = plans[i]!;
      if (!p.alerts.length) continue;
      const after = p.limitMicros !== null ? spentMicros[i]! : spentTokens[i]!;
      const before = after - (p.limitMicros !== null ? actual.micros : actual.tokens);
      for (const { percent, level } of p.alerts) {
        if (before >= level || after < level) continue;
        // Crossed by this settle (under the budget's lock); the row makes it once per window across instances.
        const inserted = await this.store.execute(
          'INSERT INTO gateway_budget_alerts (budget_id, series, idx, percent, sent_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (budget_id, series, idx, percent) DO NOTHING',
          [p.id, p.series, p.alertWindow, percent, Math.floor(clockMs / 1000)],
        );
        if (inserted > 0) alerts.push({ index: i, percent, spentMicros: spentMicros[i]!, spentTokens: spentTokens[i]! });
      }
    }
    return { usedMicros, alerts };
  }

  async spent(plans: readonly BudgetPlan[]): Promise<BackendSpent[]> {
    if (!plans.length) return [];
    // Reservations do not matter here: only the settled part is answered.
    const uses = await this.use(this.store, plans, Number.MAX_SAFE_INTEGER);
    return uses.map((u) => ({ micros: u.spentMicros, tokens: u.spentTokens, oldest: u.oldest }));
  }

  async extend(live: ReadonlyArray<{ reservationId: string; budgetIds: readonly string[] }>, expiresAt: number): Promise<void> {
    for (let i = 0; i < live.length; i += 500) {
      const ids = live.slice(i, i + 500).map((l) => l.reservationId);
      const sql = `UPDATE gateway_budget_reservations SET expires_at = ? WHERE reservation_id IN (${marks(ids.length)}) AND expires_at < ?`;
      const mirror = this.mirror;
      if (!mirror) {
        await this.store.execute(sql, [expiresAt, ...ids, expiresAt]);
        continue;
      }
      // In a ledger transaction, so the mirror moves with the rows.
      await this.inTransaction([], async (tx) => {
        await tx.execute(sql, [expiresAt, ...ids, expiresAt]);
        mirror.extended(ids, expiresAt);
        mirror.wrote();
      });
    }
  }
}
