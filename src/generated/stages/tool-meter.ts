/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/stages/tool-meter.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * Charges MCP tools/call requests made with a gateway key against its budgets: reserves each priced call's price (mcpServers.<name>.toolPrices) on every applicable budget before the call goes on (refusing with 429 budget_exceeded when one does not fit) and settles it at that price once the call is answered (0 when it got no answer).
 */
export interface ToolMeterStageConfig {
  /**
   * Largest JSON-RPC body read, in bytes (default: server.bodyLimit).
   */
  bodyLimit?: number;
}
