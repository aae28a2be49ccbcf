/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/requests/auth-tokens-create.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * POST /v1/auth/tokens (admin).
 */
export interface AuthTokenCreateRequest {
  user: string;
  team?: string;
  email?: string;
  name?: string;
  /**
   * @maxItems 64
   */
  roles?: string[];
  organization?: string;
  scopes?: ('mcp:read' | 'mcp:write')[];
  permissions?: {
    /**
     * @maxItems 256
     */
    servers?: string[];
    /**
     * @maxItems 1024
     */
    tools?: string[];
  };
  /**
   * A number followed by d, h, m or s; at most 3650 days.
   */
  expiresIn?: string;
  /**
   * Catalogue models (models.<name>) the key may use: names or globs ("gpt-*", "openai/*"). Default: every model.
   *
   * @maxItems 256
   */
  models?: string[];
  /**
   * The tool-server permissions of contract section 6 (servers and tools the key may reach); the same as `permissions` (give one of the two).
   */
  mcp?: {
    /**
     * @maxItems 256
     */
    servers?: string[];
    /**
     * @maxItems 1024
     */
    tools?: string[];
  };
  limits?: GatewayKeyLimits;
  /**
   * Budgets of this key (contract section 8).
   *
   * @maxItems 32
   */
  budgets?: Budget[];
  /**
   * Free-form data kept with the key (at most 64 fields). `assertsCustomer: true` lets the key name the end customer in x-gateway-customer.
   */
  metadata?: {
    [k: string]: unknown;
  };
  /**
   * Issue the key blocked (it is refused until unblocked).
   */
  blocked?: boolean;
}
/**
 * Per-key limits on provider routes: requests and tokens per minute, and requests running at once (across instances with redis.url).
 */
export interface GatewayKeyLimits {
  rpm?: number;
  tpm?: number;
  maxParallel?: number;
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
