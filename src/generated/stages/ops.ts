/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/stages/ops.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * Answers /health (200 while the process runs), /ready (200 once the config, the store and the tool servers are up, else 503, with each check) and /metrics (Prometheus text).
 */
export interface OpsStageConfig {
  /**
   * Log these requests at info level like every other (default false: at debug level, so probes and scrapes do not drown the log; errors are always logged at info).
   */
  logRequests?: boolean;
}
