/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/stages/credential-operations.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * The held credentials of the admin API: GET /v1/admin/credentials (list, no values), POST (create, stored encrypted), DELETE /v1/admin/credentials/{name}. Each write is audited in the log.
 */
export interface CredentialOperationsStageConfig {
  /**
   * Largest request body accepted, in bytes.
   */
  bodyLimit?: number;
}
