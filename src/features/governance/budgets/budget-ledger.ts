import type { Logger } from '../../../kernel/observability/logger.js';
import type { ApplicableBudget, BudgetLedger, Reservation, ReserveResult } from '../governance-types.js';
import type { AlertSink } from './budget-alerts.js';
import { alertOf } from './budget-alerts.js';
import { plansOf, type BudgetPlan } from './budget-plan.js';
import { rollingResetAt } from './budget-window.js';
import type { LedgerBackend } from './ledger-backend.js';

export interface BudgetLedgerOptions {
  /** How long a reservation outlives its instance's last heartbeat (ms). */
  ttlMs: number;
  logger: Logger;
  alerts?: AlertSink;
  /** A backend call slower than this counts as the store being down (ms). */
  timeoutMs?: number;
  /** The wall clock of reservation expiry (tests inject one). */
  clock?: () => number;
}

interface Live {
  reservationId: string;
  budgetIds: string[];
}

interface PendingSettle {
  budgets: readonly ApplicableBudget[];
  reservation: Reservation;
  actual: { micros: number; tokens: number };
  now: number;
  since: number;
}

/** How long a settle that could not reach the store is tried again before its spend is given up (logged). */
const PENDING_SETTLE_MAX_MS = 3_600_000;

class StoreTimeout extends Error {
  readonly code = 'ETIMEDOUT';
}

/**
 * The budget ledger (contract §8) over one backend: reserve checks every applicable budget at
 * once and holds the amount on all of them; settle replaces it by the real cost. Reservations
 * this instance holds are kept alive by a heartbeat (every ttl/3) until settled; when the
 * instance dies they expire. `now` arguments are Unix ms (the windows' instant; default: the clock).
 */
export class LedgerOverBackend implements BudgetLedger {
  private readonly live = new Map<string, Live>();
  private readonly pending: PendingSettle[] = [];
  private heartbeat: NodeJS.Timeout | undefined;
  private readonly clock: () => number;
  private readonly timeoutMs: number;

  constructor(
    private readonly backend: LedgerBackend,
    private readonly options: BudgetLedgerOptions,
  ) {
    this.clock = options.clock ?? Date.now;
    this.timeoutMs = options.timeoutMs ?? 1000;
  }

  private call<T>(work: () => Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    return Promise.race([
      work(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new StoreTimeout('budget store timed out')), this.timeoutMs);
      }),
    ]).finally(() => clearTimeout(timer));
  }

  private storeDown(err: unknown, what: string): void {
    const e = err as { code?: string; name?: string; message?: string };
    this.options.logger.warn({ err: e.code ?? e.name ?? 'error', message: e.code ? undefined : e.message }, `budget store unreachable (${what})`);
  }

  async reserve(budgets: readonly ApplicableBudget[], amount: Reservation, now?: number): Promise<ReserveResult> {
    if (!budgets.length) return { ok: true, reservation: amount };
    const plans = plansOf(uniqueBudgets(budgets), now ?? this.clock());
    const clock = this.clock();
    let result;
    try {
      result = await this.call(() => this.backend.reserve(plans, amount, clock + this.options.ttlMs, clock));
    } catch (err) {
      this.storeDown(err, 'reserve');
      return { ok: false, storeDown: true };
    }
    if (!result.ok) {
      const plan = plans[result.index]!;
      return { ok: false, refusedBy: plan.budget, resetAt: resetOf(plan, result.oldest) };
    }
    this.live.set(amount.id, { reservationId: amount.id, budgetIds: [...new Set(plans.map((p) => p.id))] });
    this.startHeartbeat();
    const remaining = remainingOf(plans, result.usedMicros, amount.micros);
    return remaining === undefined ? { ok: true, reservation: amount } : { ok: true, reservation: amount, remainingMicros: remaining };
  }

  async settle(budgets: readonly ApplicableBudget[], reservation: Reservation, actual: { micros: number; tokens: number }, now?: number): Promise<{ remainingMicros?: number }> {
    if (!budgets.length) return {};
    const at = now ?? this.clock();
    try {
      const remaining = await this.settleNow(budgets, reservation, actual, at);
      this.live.delete(reservation.id);
      return remaining === undefined ? {} : { remainingMicros: remaining };
    } catch (err) {
      // The spend is not lost: the heartbeat tries again (the reservation is kept alive meanwhile).
      this.storeDown(err, 'settle');
      this.pending.push({ budgets, reservation, actual: { ...actual }, now: at, since: this.clock() });
      this.startHeartbeat();
      return {};
    }
  }

  private async settleNow(budgets: readonly ApplicableBudget[], reservation: Reservation, actual: { micros: number; tokens: number }, now: number): Promise<number | undefined> {
    const plans = plansOf(uniqueBudgets(budgets), now);
    const amount = { micros: Math.max(0, Math.round(actual.micros)), tokens: Math.max(0, Math.round(actual.tokens)) };
    const result = await this.call(() => this.backend.settle(plans, reservation.id, amount, this.clock()));
    for (const a of result.alerts) {
      const plan = plans[a.index]!;
      this.options.alerts?.(alertOf(plan, a.percent, a.spentMicros, a.spentTokens, plan.bucketMs ? null : plan.resetAt));
    }
    return remainingOf(plans, result.usedMicros, 0);
  }

  async spent(budgets: readonly ApplicableBudget[], now?: number): Promise<Map<string, { micros: number; tokens: number; resetAt: number | null }>> {
    const plans = plansOf(uniqueBudgets(budgets), now ?? this.clock());
    const out = new Map<string, { micros: number; tokens: number; resetAt: number | null }>();
    const spent = await this.call(() => this.backend.spent(plans));
    plans.forEach((p, i) => out.set(p.id, { micros: spent[i]!.micros, tokens: spent[i]!.tokens, resetAt: resetOf(p, spent[i]!.oldest) }));
    return out;
  }

  /** Reservations this instance holds and has not settled. */
  get liveCount(): number {
    return this.live.size;
  }

  private startHeartbeat(): void {
    if (this.heartbeat) return;
    this.heartbeat = setInterval(() => void this.beat(), Math.max(10, Math.floor(this.options.ttlMs / 3)));
    this.heartbeat.unref();
  }

  private async beat(): Promise<void> {
    if (!this.live.size && !this.pending.length) {
      this.stopHeartbeat();
      return;
    }
    try {
      if (this.live.size) await this.call(() => this.backend.extend([...this.live.values()], this.clock() + this.options.ttlMs));
    } catch (err) {
      this.storeDown(err, 'heartbeat');
    }
    for (const p of this.pending.splice(0)) {
      try {
        await this.settleNow(p.budgets, p.reservation, p.actual, p.now);
        this.live.delete(p.reservation.id);
      } catch {
        if (this.clock() - p.since < PENDING_SETTLE_MAX_MS) this.pending.push(p);
        else {
          this.live.delete(p.reservation.id);
          this.options.logger.error({ reservation: p.reservation.id, micros: p.actual.micros }, 'budget settle given up: store unreachable for an hour');
        }
      }
    }
  }

  /** Stops keeping this instance's reservations alive (shutdown; tests use it to play an instance that died). */
  stopHeartbeat(): void {
    clearInterval(this.heartbeat);
    this.heartbeat = undefined;
  }

  /** Tries once more to settle what could not be settled, then stops the heartbeat. */
  async close(): Promise<void> {
    this.stopHeartbeat();
    if (this.pending.length) await this.beat().catch(() => undefined);
    this.stopHeartbeat();
  }
}

/** One plan per budget id (a budget named twice is counted once). */
export function uniqueBudgets(budgets: readonly ApplicableBudget[]): readonly ApplicableBudget[] {
  if (budgets.length < 2) return budgets;
  const seen = new Map<string, ApplicableBudget>();
  for (const b of budgets) if (!seen.has(b.id)) seen.set(b.id, b);
  return seen.size === budgets.length ? budgets : [...seen.values()];
}

function resetOf(plan: BudgetPlan, oldest: number): number | null {
  if (!plan.bucketMs) return plan.resetAt;
  // Nothing settled in the window: what holds it is live reservations; the next bucket is the soonest change.
  return rollingResetAt(oldest >= 0 ? oldest : plan.to - 23, plan.bucketMs);
}

/** The tightest money budget's limit − used − amount (never below 0), or undefined without a money budget. */
function remainingOf(plans: readonly BudgetPlan[], usedMicros: readonly number[], amount: number): number | undefined {
  let remaining: number | undefined;
  plans.forEach((p, i) => {
    if (p.limitMicros === null) return;
    const left = Math.max(0, p.limitMicros - usedMicros[i]! - amount);
    if (remaining === undefined || left < remaining) remaining = left;
  });
  return remaining;
}
