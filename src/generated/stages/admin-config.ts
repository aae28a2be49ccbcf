/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/stages/admin-config.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * GET /v1/admin/config: the effective gateway config with every secret masked (what --print-config prints), as JSON, and the pipelines serving each route family.
 */
export interface AdminConfigStageConfig {}
