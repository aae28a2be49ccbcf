import type { McpForwardStageConfig } from '../generated/stages/mcp-forward.js';
import { schemaDocument } from '../kernel/config/schema-validator.js';
import { defineStage } from '../kernel/engine/stage.js';
import { GATEWAY_CALLER } from '../features/auth/auth-services.js';
import { MCP } from '../features/mcp/mcp-services.js';
import { isModernRequest } from '../features/mcp/transport/modern-http.js';
import { mcpMessage, mcpMessageBytes } from '../features/mcp/policy/mcp-message.js';
import { REQUEST_SPAN, TRACING } from '../kernel/engine/tracing.js';
import { IDENTITY_FORWARD_HEADERS } from '../features/mcp/identity-forwarding.js';
import { ProcessRelay } from '../features/mcp/relay/process-relay.js';
import { relayAggregatedCall } from '../features/mcp/relay/aggregated-call.js';
import type { ProcessServer } from '../features/mcp/upstream/process-server.js';
import type { RemoteServer } from '../features/mcp/upstream/remote-server.js';
import { headerValue } from '../kernel/engine/context.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';

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
    const { legacy, modern, pool, remoteRelay, processRelay, aggregator, audit } = services.require(MCP);
    const tracing = services.get(TRACING);
    const bodyLimit = config.bodyLimit ?? services.config.server?.bodyLimit ?? 10 * 1024 * 1024;
    return async (ctx) => {
      const identity = ctx.identity!;
      const pinned = ctx.params.server;
      // Read once: a stage before this one (rate limits, guardrails) may have parsed it already.
      const body = await mcpMessage(ctx, bodyLimit);
      const modernRequest = isModernRequest(ctx.req);
      const res = ctx.claimResponse();
      const handle = async (): Promise<void> => {
        if (modernRequest) return modern.handle(ctx.req, res, identity, pinned, body);
        const identityHeaders = ctx.get(IDENTITY_FORWARD_HEADERS);
        if (!pinned && (await relayAggregatedCall(remoteRelay, aggregator, audit, ctx.req, res, identity, body, identityHeaders, ctx.callerSignal))) return;
        const server = pinned ? pool.get(pinned) : undefined;
        // A server of the stateless revision keeps no sessions to relay: the gateway's own sessions translate.
        if (server?.kind === 'remote' && !server.protocolVersion)
          return remoteRelay.handle(ctx.req, res, identity, server as RemoteServer, mcpMessageBytes(ctx), body, identityHeaders, ctx.callerSignal);
        if (server?.kind === 'process') {
          const sessionId = headerValue(ctx.headers, 'mcp-session-id');
          if (sessionId ? ProcessRelay.owns(sessionId) : ctx.method === 'POST' && isInitializeRequest(body)) {
            return processRelay.handle(ctx.req, res, identity, server as ProcessServer, body);
          }
        }
        await legacy.handle(ctx.req, res, identity, pinned, body);
      };
      // With traces on, the tool calls inside the transport become children of this request's span.
      const span = tracing && ctx.get(REQUEST_SPAN);
      await (span ? tracing.runIn(span, handle) : handle());
    };
  },
});
