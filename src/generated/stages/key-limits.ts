/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/stages/key-limits.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * The limits of the request's gateway key: rpm and tpm (fixed one-minute windows, counted like rateLimits), and maxParallel (requests running at once, released when the answer ends, fails or the caller goes away).
 */
export interface KeyLimitsStageConfig {}
