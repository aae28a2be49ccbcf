/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/requests/auth-tokens-rotate.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * POST /v1/auth/tokens/{id}/rotate (admin); the body is optional.
 */
export interface AuthTokenRotateRequest {
  /**
   * How long the old value keeps working beside the new one: a number followed by d, h, m or s, at most 30 days. Default: it stops at once.
   */
  gracePeriod?: string;
}
