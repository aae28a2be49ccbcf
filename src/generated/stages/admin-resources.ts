/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/stages/admin-resources.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * The admin API's organisations, teams, users and budgets (JSON CRUD: POST, GET list and one, PATCH, DELETE under /v1/admin/<resource>) and GET /v1/admin/audit. Needs authenticate with credential admin before it; every write is audited.
 */
export interface AdminResourcesStageConfig {
  /**
   * Largest request body accepted, in bytes.
   */
  bodyLimit?: number;
}
