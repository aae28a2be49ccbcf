/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/stages/retry.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * Retries a failed target attempt with exponential backoff and jitter (or the upstream's Retry-After), within the request deadline. The target's own retry (routing config) wins; these settings are the default for requests without one.
 */
export interface RetryStageConfig {
  /**
   * Extra tries (0 to 5).
   */
  attempts?: number;
  /**
   * Upstream statuses retried (default 429, 500, 502, 503, 504); timeouts and network errors always are.
   */
  on_status_codes?: number[];
  /**
   * Wait what the upstream's Retry-After says instead of the backoff (default true; false always backs off). A Retry-After past the request deadline or above maxRetryAfterMs is not waited for.
   */
  use_retry_after_header?: boolean;
  /**
   * First backoff in ms (doubles each retry, with jitter).
   */
  initialDelayMs?: number;
  /**
   * Longest backoff in ms.
   */
  maxDelayMs?: number;
  /**
   * A Retry-After longer than this (ms) is not waited for: the failure is answered instead.
   */
  maxRetryAfterMs?: number;
}
