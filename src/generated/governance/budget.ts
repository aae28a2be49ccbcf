/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/governance/budget.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

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
