import type { ToolMeterStageConfig } from '../../../generated/stages/tool-meter.js';
import { schemaDocument } from '../../../kernel/config/schema-validator.js';
import { defineStage } from '../../../kernel/engine/stage.js';
import { authorize, splitName, isRequestId, mcpMessage, messagesOf, MCP_MESSAGE } from '../../mcp/index.js';
import { TOOL_CHARGES } from './tool-charges.js';
import { GATEWAY_KEY } from '../../../features/governance/governance-slots.js';
import { IDENTITY } from '../../../kernel/engine/context.js';

/**
 * Charges tools/call requests on /mcp and /mcp/<server> against the caller's budgets (see
 * ToolCharges): every priced call of the body is reserved before the body goes on; a call that
 * does not fit refuses the whole body with 429 budget_exceeded (nothing reaches a tool server).
 * Left out of the pipeline when no tool has a price.
 */
export default defineStage<ToolMeterStageConfig>({
  name: 'tool-meter',
  description: 'Reserves the price of priced MCP tool calls on the caller’s budgets; refuses with 429 budget_exceeded when one does not fit.',
  schema: schemaDocument('stages/tool-meter.schema.json'),
  once: true,
  reads: [GATEWAY_KEY, MCP_MESSAGE, IDENTITY],
  create(config, services) {
    const charges = services.get(TOOL_CHARGES);
    if (!charges?.priced) return null;
    const bodyLimit = config.bodyLimit ?? services.config.server?.bodyLimit ?? 10 * 1024 * 1024;
    return async (ctx, next) => {
      if (ctx.method !== 'POST' || !ctx.identity) return next();
      const pinned = ctx.params.server;
      const calls: Array<{ server: string; tool: string }> = [];
      for (const m of messagesOf(await mcpMessage(ctx, bodyLimit))) {
        if (m.method !== 'tools/call' || !isRequestId(m.id) || typeof m.params?.name !== 'string') continue;
        const named = pinned ? { server: pinned, name: m.params.name } : splitName(m.params.name);
        // A call its caller may not make is refused further on and never answered: nothing to hold for it.
        if (named && authorize(ctx.identity, { action: 'call', server: named.server, tool: named.name }).allowed) calls.push({ server: named.server, tool: named.name });
      }
      if (calls.length) await charges.reserve(ctx, calls);
      await next();
    };
  },
});
