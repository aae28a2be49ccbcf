/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/auth-modes/mtls.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * A client certificate signed by auth.ca (the TLS server demands it); identity from its subject: CN as name, email SAN as email, OU as team.
 */
export interface MtlsAuthModeConfig {
  /**
   * CA certificate path (used by the TLS server).
   */
  ca?: string;
  /**
   * Refuse TLS connections without a certificate (default true).
   */
  requireClientCert?: boolean;
}
