/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/stages/cors.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * Checks the Origin header (server.allowedOrigins, the gateway's own origin, and any loopback origin when it listens on loopback only): a foreign origin is a 403. Allowed origins get CORS headers; an OPTIONS preflight is answered here (204).
 */
export interface CorsStageConfig {
  /**
   * Access-Control-Allow-Methods of a preflight.
   */
  methods?: string[];
  /**
   * Access-Control-Allow-Headers of a preflight (the api-key header of auth.header is added).
   */
  allowHeaders?: string[];
  /**
   * Access-Control-Expose-Headers of every answer to an allowed origin.
   */
  exposeHeaders?: string[];
  /**
   * Access-Control-Max-Age of a preflight, in seconds.
   */
  maxAge?: number;
}
