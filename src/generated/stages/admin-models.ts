/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/stages/admin-models.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * GET /v1/admin/models: every catalogue model with its provider and price, unpriced models flagged (the admin API, any admin role).
 */
export interface AdminModelsStageConfig {}
