/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/stages/fallback.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * Runs the routing decision: the strategy of each group of targets (single, fallback, loadbalance, conditional), circuit breakers (routing.circuitBreaker) and deadlines (request_timeout), calling the rest of the pipeline once per target attempt. It takes no settings: the routing config is the request's.
 */
export interface FallbackStageConfig {}
