/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/requests/auth-tokens-update.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * The limits sent replace those of the key, the others stay; a limit set to null is removed; limits: null removes them all.
 */
export type GatewayKeyLimitsPatch = {
  rpm?: number | null;
  tpm?: number | null;
  maxParallel?: number | null;
} | null;

/**
 * PATCH /v1/auth/tokens/{id} (admin): a partial update of a gateway key. Only the fields sent change; null removes one. The value, user, team, roles, scopes and tool-server permissions cannot be changed (issue a new key, or rotate for a new value).
 */
export interface AuthTokenUpdateRequest {
  name?: string | null;
  /**
   * Catalogue models the key may use (names or globs), replacing the list; null: every model.
   *
   * @maxItems 256
   */
  models?: string[] | null;
  limits?: GatewayKeyLimitsPatch;
  /**
   * The key's budgets, replacing the list (the n-th budget keeps the spend counted on the n-th before); null or []: none.
   *
   * @maxItems 32
   */
  budgets?: Budget[] | null;
  /**
   * Free-form data kept with the key, replacing what it had (at most 64 fields); null: none.
   */
  metadata?: {
    [k: string]: unknown;
  } | null;
  /**
   * When the key expires (Unix seconds): in the future, at most 3650 days from now.
   */
  expires_at?: number;
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
