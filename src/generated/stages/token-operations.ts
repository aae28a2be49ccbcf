/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/stages/token-operations.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * The token operations: POST /v1/auth/tokens (issue), GET (list), PATCH /v1/auth/tokens/{id} (edit), DELETE /v1/auth/tokens/{id} (revoke), POST /v1/auth/tokens/{id}/rotate, .../block and .../unblock. Each is audited in the log.
 */
export interface TokenOperationsStageConfig {
  /**
   * Largest request body accepted, in bytes.
   */
  bodyLimit?: number;
}
