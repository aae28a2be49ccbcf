/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/stages/protected-resource.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * Serves the RFC 9728 protected-resource metadata of the tool-server endpoint.
 */
export interface ProtectedResourceStageConfig {
  /**
   * Cache-Control max-age of the document, in seconds.
   */
  maxAge?: number;
}
