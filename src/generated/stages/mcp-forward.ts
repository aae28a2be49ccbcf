/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/stages/mcp-forward.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * Hands the JSON-RPC message to the tool-server transport of /mcp (every server the caller may use, names server__name) or /mcp/<server> (one server, its own names): sessions, the stateless revision, server streams.
 */
export interface McpForwardStageConfig {
  /**
   * Largest JSON-RPC message accepted, in bytes (default server.bodyLimit).
   */
  bodyLimit?: number;
}
