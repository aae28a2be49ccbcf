import type { Reservation } from '../governance-types.js';
import type { BudgetPlan } from './budget-plan.js';

/** What a backend answers to a reserve: every plan's use before it, or the first plan that refused. */
export type BackendReserve =
  | { ok: true; /** Per plan: settled spend in its window + live reservations, before this one (microdollars). */ usedMicros: number[] }
  | { ok: false; index: number; /** Rolling windows: the oldest counted bucket holding spend (-1: none). */ oldest: number };

export interface SettledAlert {
  index: number;
  percent: number;
  spentMicros: number;
  spentTokens: number;
}

export interface BackendSettle {
  /** Per plan: settled spend + live reservations after the settle (microdollars). */
  usedMicros: number[];
  /** Thresholds this settle crossed, each recorded as sent in the backend (once per window). */
  alerts: SettledAlert[];
}

export interface BackendSpent {
  micros: number;
  tokens: number;
  /** Rolling windows: the oldest counted bucket holding spend (-1: none). */
  oldest: number;
}

/**
 * One store's implementation of the ledger's atomic steps (Redis, PostgreSQL, SQLite). Every
 * call is atomic across the instances sharing the store. `clockMs` is the wall clock for
 * reservation expiry; windows come in the plans.
 */
export interface LedgerBackend {
  reserve(plans: readonly BudgetPlan[], reservation: Reservation, expiresAt: number, clockMs: number): Promise<BackendReserve>;
  settle(plans: readonly BudgetPlan[], reservationId: string, actual: { micros: number; tokens: number }, clockMs: number): Promise<BackendSettle>;
  spent(plans: readonly BudgetPlan[]): Promise<BackendSpent[]>;
  /** Moves the expiry of live reservations (the heartbeat of the instance holding them). */
  extend(live: ReadonlyArray<{ reservationId: string; budgetIds: readonly string[] }>, expiresAt: number): Promise<void>;
}
