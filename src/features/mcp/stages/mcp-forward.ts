import type { McpForwardStageConfig } from '../../../generated/stages/mcp-forward.js';
import { schemaDocument } from '../../../kernel/config/schema-validator.js';
import { defineStage } from '../../../kernel/engine/stage.js';
import { GATEWAY_CALLER } from '../../auth/index.js';
import { MCP } from '../mcp-services.js';
import { mcpMessage, MCP_MESSAGE } from '../policy/mcp-message.js';
import { REQUEST_SPAN, TRACING } from '../../../kernel/engine/tracing.js';
import { IDENTITY_FORWARD_HEADERS } from '../../auth/index.js';
import { IDENTITY, RESPONSE } from '../../../kernel/engine/context.js';
import { UPSTREAM } from '../../../kernel/engine/report.js';
import { MCP_ANSWER_STEPS } from '../dispatch/answer-steps.js';

/**
 * Hands the request to the tool-server transport: /mcp (every tool server the caller may use,
 * names `server__name`) or /mcp/<server> (one server, its own names), served by the stateless
 * revision (2026-07-28) or the handshake-era transport (sessions through the SDK). The
 * transport writes its answer (JSON or an event stream) on the response itself; a failure
 * before it starts is answered in the contract's body. The MCP layer is loaded by the first
 * request that needs it when no tool server is configured.
 */
export default defineStage<McpForwardStageConfig>({
  name: 'mcp-forward',
  description: 'Forwards the JSON-RPC message to the tool servers through the MCP transport.',
  schema: schemaDocument('stages/mcp-forward.schema.json'),
  requires: [GATEWAY_CALLER],
  once: true,
  reads: [IDENTITY, IDENTITY_FORWARD_HEADERS, REQUEST_SPAN, MCP_MESSAGE, MCP_ANSWER_STEPS],
  writes: [UPSTREAM, RESPONSE],
  terminal: true,
  create(config, services) {
    const endpoint = services.require(MCP);
    const tracing = services.get(TRACING);
    const bodyLimit = config.bodyLimit ?? services.config.server?.bodyLimit ?? 10 * 1024 * 1024;
    return async (ctx) => {
      const identity = ctx.identity!;
      // Read once: a stage before this one (rate limits, guardrails) may have parsed it already.
      const body = await mcpMessage(ctx, bodyLimit);
      const parts = endpoint.parts ?? (await endpoint.load());
      const res = ctx.claimResponse();
      const identityHeaders = ctx.get(IDENTITY_FORWARD_HEADERS);
      // What stages before (the tool guardrails) want to see of the answers: applied by the transport, on parsed messages.
      const steps = ctx.get(MCP_ANSWER_STEPS);
      // With traces on, the tool calls inside the transport become children of this request's span.
      const span = tracing && ctx.get(REQUEST_SPAN);
      const serve = () => parts.serve(ctx, res, identity, body, identityHeaders, steps);
      await (span ? tracing.runIn(span, serve) : serve());
    };
  },
});
