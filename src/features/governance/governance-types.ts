import type { Budget } from '../../generated/governance/budget.js';
import type { TokenUsage } from './prices/usage-classes.js';

/**
 * The shared vocabulary of keys, models and money (contract §8). Each part of the governance
 * feature (keys, catalogue, credentials, budgets, ledger, tenants) implements one of these
 * services; the stages reach them through the service tokens of governance-services.ts.
 */

/** Scopes a budget can be set on, in the order answers name them. */
export const BUDGET_SCOPES = ['key', 'user', 'team', 'organization', 'customer', 'model', 'credential'] as const;
export type BudgetScope = (typeof BUDGET_SCOPES)[number];

/** A gateway key as a request presents it (authentication makes it: features/auth/gateway-key.ts). */
export type { GatewayKey } from '../auth/index.js';

/** A budget that applies to a request: where it is set, and its window's identity. */
export interface ApplicableBudget {
  /** Stable id: `<scope>:<subject>:<index of the budget in its list>` for config budgets, the row id for API ones. */
  id: string;
  scope: BudgetScope;
  subject: string;
  budget: Budget;
}

/** What a request may cost at most, reserved before it goes upstream. */
export interface Reservation {
  /** Unique per request. */
  id: string;
  micros: number;
  tokens: number;
}

export type ReserveResult =
  | { ok: true; reservation: Reservation; /** The tightest money budget's remaining microdollars after this reservation, when any applies. */ remainingMicros?: number }
  | { ok: false; refusedBy: ApplicableBudget; /** Unix seconds when that budget's window resets (null: never). */ resetAt: number | null }
  | { ok: false; storeDown: true };

/** Budgets' spend: reserve before the upstream call on every applicable budget at once, settle after. */
export interface BudgetLedger {
  reserve(budgets: readonly ApplicableBudget[], amount: Reservation, now?: number): Promise<ReserveResult>;
  /**
   * reserve answered in this turn where the ledger can (a lease in memory with room on every
   * budget): the reservation made, or undefined when only `reserve` can answer (nothing held).
   */
  reserveNow?(budgets: readonly ApplicableBudget[], amount: Reservation): ReserveResult | undefined;
  /** Replaces the reservation by the real cost (0 for a failed or refused request). */
  settle(budgets: readonly ApplicableBudget[], reservation: Reservation, actual: { micros: number; tokens: number }, now?: number): Promise<{ remainingMicros?: number }>;
  /** settle answered through a callback, called once (a ledger that settles many requests in memory makes no promise per request). */
  settleThen?(
    budgets: readonly ApplicableBudget[],
    reservation: Reservation,
    actual: { micros: number; tokens: number },
    done: (err: Error | undefined, remainingMicros?: number) => void,
  ): void;
  /** Spend so far in each budget's current window (for /v1/me and the console). */
  spent(budgets: readonly ApplicableBudget[], now?: number): Promise<Map<string, { micros: number; tokens: number; resetAt: number | null }>>;
}

/**
 * One part of a request (a model call or a tool call of a tool loop), kept in the usage ledger's
 * parts table under the request's row. Model parts name their provider and model, tool parts
 * their server and tool.
 */
export interface UsagePart {
  /** 1, 2, ...: the order the parts ended in. */
  seq: number;
  kind: 'model' | 'tool';
  provider: string | null;
  model: string | null;
  server: string | null;
  tool: string | null;
  usage: TokenUsage;
  /** Whole microdollars; null when the model has no price. */
  costMicros: number | null;
  priceSource: string | null;
  /** The call's own status: 200 answered; a failed model call its error status; a tool call that got no answer 502. */
  status: number;
  latencyMs: number;
  estimated: boolean;
  /** Unix milliseconds: when the part ended. */
  at: number;
}

/** One row of the usage ledger: a finished request with a gateway key. */
export interface UsageRow {
  requestId: string;
  /** The request's parts (a tool loop's model and tool calls), written with the row in one transaction. */
  parts?: UsagePart[];
  at: number;
  keyId: string | null;
  user: string | null;
  team: string | null;
  organization: string | null;
  customer: string | null;
  route: string;
  provider: string | null;
  model: string | null;
  usage: TokenUsage;
  /** Whole microdollars; null when the model has no price. */
  costMicros: number | null;
  priceSource: string | null;
  status: number;
  latencyMs: number;
  /** Tokens counted by the gateway (the provider gave no usage, e.g. the client went away mid-stream). */
  estimated: boolean;
  /** Served while the budget store was down (budgets.onStoreDown: allow). */
  unverified: boolean;
  /** The upstream attempts (retries and fallbacks, targets skipped for an open circuit), in order; absent: none were made. */
  attempts?: UsageAttempt[] | null;
}

/** One upstream attempt of a request, as the ledger keeps it (no body, no message: the provider, target, status, time and error type). */
export interface UsageAttempt {
  provider: string;
  /** The target's place in the routing plan (e.g. "0", "1.0"); null: a single target. */
  target: string | null;
  status: number | null;
  latency_ms: number;
  /** The error's code (e.g. rate_limit_exceeded, timeout, circuit_open); null: it answered. */
  error_type: string | null;
  /** Set when the target was not called (its circuit is open). */
  skipped?: string;
}

/** The usage ledger: rows written in batches off the request path, flushed on SIGTERM. */
export interface UsageLedger {
  /** A request's row (with its parts, if any). */
  record(row: UsageRow): void;
  /** Parts of a request whose row was recorded already (a tool call of a loop that ended after the loop's answer). */
  recordParts(requestId: string, parts: UsagePart[]): void;
  /** Work that records rows when it ends (a settle, then its row): `flush` waits for it first. */
  track(work: Promise<unknown>): void;
  /** The same for work that ends in a callback: `flush` waits until the function returned is called. */
  expect(): () => void;
  /** Writes every row recorded or tracked so far. */
  flush(): Promise<void>;
}
