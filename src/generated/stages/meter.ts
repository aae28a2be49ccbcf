/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/stages/meter.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * Meters requests made with a gateway key: reserves the worst-case cost on every applicable budget before the upstream call (refusing with 429 budget_exceeded when one does not fit), settles to the real cost once the answer is written, records one usage ledger row, and adds x-gateway-cost and x-gateway-budget-remaining to the answer.
 */
export interface MeterStageConfig {
  /**
   * Largest JSON request body read to count the prompt, in bytes (default: server.bodyLimit).
   */
  bodyLimit?: number;
}
