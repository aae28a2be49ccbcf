/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/stages/responses-state.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * Keeps Responses API answers in the gateway's store (SQLite or PostgreSQL) so that store, previous_response_id, retrieve, delete, cancel and input_items work on every provider. Runs once per target attempt (after fallback). It takes no settings.
 */
export interface ResponsesStateStageConfig {}
