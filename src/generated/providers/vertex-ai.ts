/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/providers/vertex-ai.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * providers.vertex-ai: Google Vertex AI (a service account or an access token).
 */
export interface VertexAiProviderSettings {
  /**
   * Replaces the provider's public address; the provider's own paths are appended (as its official SDK does).
   */
  baseUrl?: string;
  /**
   * Extra headers sent to this provider on every request.
   */
  headers?: {
    [k: string]: string;
  };
  /**
   * Most keep-alive connections per upstream origin.
   */
  connections?: number;
  /**
   * Hosts (host or host:port) a service account's token_uri may name besides https://*.googleapis.com.
   */
  tokenHosts?: string[];
  [k: string]: unknown;
}
