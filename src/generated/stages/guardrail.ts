/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/stages/guardrail.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * Runs guardrails (guardrails.<id>). In the provider pipelines: `input` and `output` on every request and answer, before the target's own input_guardrails / output_guardrails. In the MCP pipeline: `toolArguments` on the arguments of every tools/call before it reaches its tool server and `toolResults` on every tool result before it reaches the caller (deny: a JSON-RPC error, code -32005; redact: masked text; flag: marked), limited to `tools` when given. A stage holds either input/output or toolArguments/toolResults.
 */
export interface GuardrailStageConfig {
  /**
   * Guardrail ids checked on every request.
   */
  input?: string[];
  /**
   * Guardrail ids checked on every answer.
   */
  output?: string[];
  /**
   * MCP: guardrail ids checked on the arguments of every tools/call (every string in params.arguments).
   */
  toolArguments?: string[];
  /**
   * MCP: guardrail ids checked on every tool result (text content, embedded resource text, strings of structuredContent).
   */
  toolResults?: string[];
  /**
   * MCP: only calls of these tools (server__tool names, or patterns with *, such as github__*); every tool when absent.
   */
  tools?: string[];
}
