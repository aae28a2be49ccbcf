import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { headerValue, type GatewayContext, type Identity } from '../../kernel/engine/context.js';
import { TRACING } from '../../kernel/engine/tracing.js';
import type { GatewayServices } from '../../kernel/engine/services.js';
import { Aggregator } from './aggregator.js';
import type { AuditLog } from './audit.js';
import type { McpParts } from './mcp-services.js';
import { mcpMessageBytes } from './policy/mcp-message.js';
import { relayAggregatedCall } from './relay/aggregated-call.js';
import { ProcessRelay } from './relay/process-relay.js';
import { RemoteRelay } from './relay/remote-relay.js';
import { SessionBus } from './relay/session-bus.js';
import { SessionEnds } from './relay/session-ends.js';
import { SessionSeal } from './relay/session-seal.js';
import { LegacySessions } from './transport/legacy-sessions.js';
import { isModernRequest, ModernEndpoint } from './transport/modern-http.js';
import type { ProcessServer } from './upstream/process-server.js';
import type { RemoteServer } from './upstream/remote-server.js';
import { ServerPool } from './upstream/server-pool.js';
import type { ListKind } from './upstream/upstream-server.js';

/**
 * The parts of the tool-server endpoint that speak MCP (the SDK's transports and clients, the
 * tool servers, the relays). This module and what it imports are loaded when a config names
 * tool servers, or on the first request to /mcp (see McpEndpoint.load).
 */
export function createMcpParts(services: GatewayServices, audit: AuditLog): McpParts {
  const pool = new ServerPool(services.config, services.logger);
  const aggregator = new Aggregator(pool, audit, services.get(TRACING));
  // Session ids are sealed under the key every instance shares (sessions on any instance).
  const seal = new SessionSeal(randomBytes(32));
  const ends = new SessionEnds(services.logger);
  const bus = new SessionBus(services.logger);
  const legacy = new LegacySessions(aggregator, services.logger, seal, ends, bus);
  const modern = new ModernEndpoint(aggregator, services.logger, seal, bus);
  pool.on('list_changed', (server: string, kind: ListKind) => {
    legacy.notifyListChanged(server, kind);
    modern.notifyListChanged(server, kind);
    // The tools a server lists are the tool labels its calls may show in metrics.
    const upstream = kind === 'tools' && audit.tools ? pool.get(server) : undefined;
    if (upstream) void audit.tools!.refresh(upstream, services.logger);
  });
  const remoteRelay = new RemoteRelay(seal, audit, services.logger);
  const processRelay = new ProcessRelay(audit, services.logger, seal, bus);
  const parts: McpParts = {
    pool,
    aggregator,
    legacy,
    modern,
    audit,
    remoteRelay,
    processRelay,
    ends,
    bus,
    serve: (ctx, res, identity, body, identityHeaders) => serve(parts, ctx, res, identity, body, identityHeaders),
  };
  return parts;
}

/**
 * Hands one request to the transport that serves it: /mcp (every tool server the caller may
 * use, names `server__name`) or /mcp/<server> (one server, its own names), served by the
 * stateless revision (2026-07-28) or the handshake-era transport (sessions through the SDK),
 * with the lean relays for the busiest requests. The transport writes the answer itself.
 */
async function serve(
  parts: McpParts,
  ctx: GatewayContext,
  res: ServerResponse,
  identity: Identity,
  body: unknown,
  identityHeaders: Record<string, string> | undefined,
): Promise<void> {
  const pinned = ctx.params.server;
  if (isModernRequest(ctx.req)) return parts.modern.handle(ctx.req, res, identity, pinned, body);
  if (!pinned && (await relayAggregatedCall(parts.remoteRelay, parts.aggregator, parts.audit, ctx.req, res, identity, body, identityHeaders, ctx.callerSignal))) return;
  const server = pinned ? parts.pool.get(pinned) : undefined;
  // A server of the stateless revision keeps no sessions to relay: the gateway's own sessions translate.
  if (server?.kind === 'remote' && !server.protocolVersion)
    return parts.remoteRelay.handle(ctx.req, res, identity, server as RemoteServer, mcpMessageBytes(ctx), body, identityHeaders, ctx.callerSignal);
  if (server?.kind === 'process') {
    const sessionId = headerValue(ctx.headers, 'mcp-session-id');
    if (sessionId ? ProcessRelay.owns(sessionId) : ctx.method === 'POST' && isInitializeRequest(body)) {
      return parts.processRelay.handle(ctx.req, res, identity, server as ProcessServer, body);
    }
  }
  await parts.legacy.handle(ctx.req, res, identity, pinned, body);
}
