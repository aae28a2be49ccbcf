/**
 * The public entry of the MCP feature: what other features may use (the aggregated tools, tool
 * names, authorization, MCP messages, tool-call observers, tool guardrails). Everything else in
 * this folder is its own business (eslint/layers.js refuses imports of it from another feature).
 */
export { MCP, TOOL_CALL_STATS, type ToolCallStats } from './mcp-services.js';
export type { Aggregator } from './aggregator.js';
export { SEPARATOR, splitName } from './naming.js';
export { authorize } from './authorization.js';
export { MCP_MESSAGE, carriesRequest, isRequestId, mcpMessage, messagesOf } from './policy/mcp-message.js';
export { TOOL_GUARD, toolGuard, toolGuardrails } from './policy/tool-guardrails.js';
export { MCP_ANSWER_STEPS } from './dispatch/answer-steps.js';
export { originAllowed } from './transport/origin.js';
export { MCP_STAGES } from './stages/mcp-stages.js';
export { TOOL_CALL_OBSERVERS, type ObservedToolCall, type ToolCallObserver } from './tool-call-observers.js';
export { mcpFeature } from './mcp-feature.js';
