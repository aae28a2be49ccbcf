/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/stages/responses-kept.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * Answers GET, DELETE, cancel and input_items of a response the gateway keeps for a caller that names no provider (a gateway key, whose requests are routed by model) from the store, before routing: such a request names no model to route by. Other requests pass on to routing and responses-state. It takes no settings.
 */
export interface ResponsesKeptStageConfig {}
