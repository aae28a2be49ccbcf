import type { McpForwardStageConfig } from '../generated/stages/mcp-forward.js';
import { schemaDocument } from '../kernel/config/schema-validator.js';
import { readRequestBytes } from '../kernel/engine/request-body.js';
import { defineStage } from '../kernel/engine/stage.js';
import { badRequest } from '../contract/errors/gateway-error.js';
import { GATEWAY_CALLER } from '../features/auth/auth-services.js';
import { MCP } from '../features/mcp/mcp-services.js';
import { isModernRequest } from '../features/mcp/transport/modern-http.js';
import { REQUEST_SPAN, TRACING } from '../kernel/engine/tracing.js';

/**
 * Hands the request to the tool-server transport: /mcp (every tool server the caller may use,
 * names `server__name`) or /mcp/<server> (one server, its own names), served by the stateless
 * revision (2026-07-28) or the handshake-era transport (sessions through the SDK). The
 * transport writes its answer (JSON or an event stream) on the response itself; a failure
 * before it starts is answered in the contract's body.
 */
export default defineStage<McpForwardStageConfig>({
  name: 'mcp-forward',
  description: 'Forwards the JSON-RPC message to the tool servers through the MCP transport.',
  schema: schemaDocument('stages/mcp-forward.schema.json'),
  requires: [GATEWAY_CALLER],
  once: true,
  create(config, services) {
    const { legacy, modern } = services.require(MCP);
    const tracing = services.get(TRACING);
    const bodyLimit = config.bodyLimit ?? services.config.server?.bodyLimit ?? 10 * 1024 * 1024;
    return async (ctx) => {
      const identity = ctx.identity!;
      const pinned = ctx.params.server;
      let body: unknown;
      if (ctx.method === 'POST') {
        const raw = await readRequestBytes(ctx.req, bodyLimit);
        if (raw.length === 0) throw badRequest('The request body is empty; a JSON-RPC message is required.', 'body');
        try {
          body = JSON.parse(raw.toString('utf8'));
        } catch (err) {
          throw badRequest(`The request body is not valid JSON: ${(err as Error).message}`, 'body');
        }
      }
      const modernRequest = isModernRequest(ctx.req);
      const res = ctx.claimResponse();
      const handle = () => (modernRequest ? modern.handle(ctx.req, res, identity, pinned, body) : legacy.handle(ctx.req, res, identity, pinned, body));
      // With traces on, the tool calls inside the transport become children of this request's span.
      const span = tracing && ctx.get(REQUEST_SPAN);
      await (span ? tracing.runIn(span, handle) : handle());
    };
  },
});
