/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/auth-modes/api-key.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * A key in the header named by `header`: a config key of auth.apiKeys or a token issued by the token operations.
 */
export interface ApiKeyAuthModeConfig {
  /**
   * Header carrying the key.
   */
  header?: string;
}
