/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/stages/not-found.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * Answers a route the gateway does not have: 404 not_found in the contract's body. It takes no settings.
 */
export interface NotFoundStageConfig {}
