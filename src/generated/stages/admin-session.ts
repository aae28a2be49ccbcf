/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/stages/admin-session.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * The admin API's cookie sessions: POST /v1/admin/session trades the admin token, or a gateway key with an admin role, for an HttpOnly SameSite=Strict session cookie (Secure over TLS) and a CSRF token; GET answers the session's role; DELETE logs out.
 */
export interface AdminSessionStageConfig {
  /**
   * Largest login body read, in bytes.
   */
  bodyLimit?: number;
}
