/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/governance/budgets-config.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * Budgets from the config file by scope and subject (read-only through /v1/admin/budgets, source: file), and how budgets behave.
 */
export interface BudgetsConfig {
  /**
   * With the shared store unreachable: refuse (503 service_unavailable) or allow (served, recorded as unverified, logged at warn).
   */
  onStoreDown?: 'refuse' | 'allow';
  alertWebhook?: BudgetAlertWebhook;
  /**
   * How long a budget check may wait for the store before the store counts as down (onStoreDown), e.g. "1s" or "500ms". Default: 1s with Redis; 5s on PostgreSQL or SQLite, where checks on one budget queue behind its lock.
   */
  storeTimeout?: string;
  /**
   * How long a reservation outlives its instance's last heartbeat (e.g. "30s").
   */
  reservationTtl?: string;
  leases?: BudgetLeases;
  key?: BySubject;
  user?: BySubject;
  team?: BySubject;
  organization?: BySubject;
  customer?: BySubject;
  model?: BySubject;
  credential?: BySubject;
}
/**
 * Where budget alerts are POSTed (JSON).
 */
export interface BudgetAlertWebhook {
  url: string;
  headers?: {
    [k: string]: string;
  };
}
/**
 * Budget leases: an instance takes a slice of a budget from the shared store in one atomic step and reserves requests from it in memory, so most requests make no store call. A slice is returned (its real spend settled) when it has been open `interval` and its last request settles; it expires like any reservation if its instance dies. Near a budget's limit a slice shrinks to one request, which is then exact.
 */
export interface BudgetLeases {
  /**
   * How many of the current request's worst-case cost one slice holds (0: no leases; every request reserves in the store).
   */
  requests?: number;
  /**
   * The most of what was left of a budget at the last slice that one slice takes (0 to 1).
   */
  share?: number;
  /**
   * How long a slice takes new requests before it is returned, e.g. "1s" or "250ms" (the most spend lags in the store's counters).
   */
  interval?: string;
}
/**
 * Budgets by subject (the key id, user, team, organisation, customer, catalogue model or credential name).
 */
export interface BySubject {
  [k: string]:
    | Budget
    | []
    | [Budget]
    | [Budget, Budget]
    | [Budget, Budget, Budget]
    | [Budget, Budget, Budget, Budget]
    | [Budget, Budget, Budget, Budget, Budget]
    | [Budget, Budget, Budget, Budget, Budget, Budget]
    | [Budget, Budget, Budget, Budget, Budget, Budget, Budget]
    | [Budget, Budget, Budget, Budget, Budget, Budget, Budget, Budget]
    | [Budget, Budget, Budget, Budget, Budget, Budget, Budget, Budget, Budget]
    | [Budget, Budget, Budget, Budget, Budget, Budget, Budget, Budget, Budget, Budget];
}
/**
 * A spending limit in money and/or tokens over a window (contract §8). Every budget that applies to a request must fit.
 */
export interface Budget {
  /**
   * A label for answers, alerts and the console (default: the scope and subject).
   */
  name?: string;
  /**
   * US dollars per window (kept as whole microdollars).
   */
  limit_usd?: number;
  /**
   * Tokens (every class) per window.
   */
  limit_tokens?: number;
  window?: BudgetWindow;
  /**
   * block: refuse what does not fit (429 budget_exceeded); audit: record and alert, never refuse.
   */
  action?: 'block' | 'audit';
  /**
   * Percentages of the limit at which an alert is sent (webhook) and logged, once per window each.
   *
   * @maxItems 10
   */
  alerts?:
    | []
    | [number]
    | [number, number]
    | [number, number, number]
    | [number, number, number, number]
    | [number, number, number, number, number]
    | [number, number, number, number, number, number]
    | [number, number, number, number, number, number, number]
    | [number, number, number, number, number, number, number, number]
    | [number, number, number, number, number, number, number, number, number]
    | [number, number, number, number, number, number, number, number, number, number];
}
export interface BudgetWindow {
  /**
   * day, week, month, total (never resets), or a length: "<n>h" or "<n>d".
   */
  period?: string;
  /**
   * calendar: windows start at calendar boundaries in `timezone`; rolling: the last `period` up to now.
   */
  kind?: 'calendar' | 'rolling';
  /**
   * IANA time zone of calendar windows (default UTC).
   */
  timezone?: string;
}
