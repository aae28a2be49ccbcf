/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/stages/tool-loop.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * Runs the MCP tool loop for requests that name a tool server of the gateway (an `mcp` tool of /v1/responses or /v1/chat/completions): lists the server's tools the caller may use, offers them to the model as functions, runs the model's calls through /mcp's authorization, identity forwarding and audit, and calls the model again until it answers. Runs once per target attempt (after fallback). The limits bound every loop; a loop that reaches one ends with the answer so far (status incomplete).
 */
export interface ToolLoopStageConfig {
  /**
   * Most model calls in one loop.
   */
  maxIterations?: number;
  /**
   * Most tool calls in one loop (a request's own max_tool_calls may lower it).
   */
  maxToolCalls?: number;
  /**
   * Wall time of one loop in ms: a tool call still running then is cancelled and the loop ends with the answer so far.
   */
  timeoutMs?: number;
  /**
   * Tool calls of one model turn run at once.
   */
  parallelCalls?: number;
}
