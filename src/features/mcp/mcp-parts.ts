import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { headerValue, type GatewayContext, type Identity } from '../../kernel/engine/context.js';
import { TRACING } from '../../kernel/engine/tracing.js';
import { redactAnswer } from '../../kernel/errors/redact.js';
import type { GatewayServices } from '../../kernel/engine/services.js';
import { Aggregator } from './aggregator.js';
import { AccessStep } from './dispatch/access-step.js';
import { PinStore } from './pins/pin-store.js';
import { ToolPins, type PinMode } from './pins/tool-pins.js';
import { STORE } from '../../kernel/store/store-capability.js';
import { bearerValue, publicBaseUrl } from '../auth/index.js';
import { SEALER } from '../../kernel/store/sealer.js';
import type { McpServerAuth } from '../../generated/gateway.js';
import { ConnectionStore } from './connections/connection-store.js';
import { UserConnections } from './connections/user-connections.js';
import { accountLabel, ownerOf } from './session-owner.js';
import { CALLER_CREDENTIAL } from './upstream/upstream-token.js';
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
import { ToolListCache } from './upstream/tool-list-cache.js';
import type { AnswerSteps } from './dispatch/answer-steps.js';
import type { ListKind } from './upstream/upstream-server.js';

/**
 * The parts of the tool-server endpoint that speak MCP (the SDK's transports and clients, the
 * tool servers, the relays). This module and what it imports are loaded when a config names
 * tool servers, or on the first request to /mcp (see McpEndpoint.load).
 */
export function createMcpParts(services: GatewayServices, audit: AuditLog): McpParts {
  const connections = createConnections(services);
  const pool = new ServerPool(services.config, services.logger, () => connections);
  const access = new AccessStep(audit);
  const pins = createPins(services, audit);
  access.useGate(pins);
  const aggregator = new Aggregator(pool, access, services.get(TRACING));
  // Each server's tool list, read once and shared (the admin API, the metric labels, the pins): every
  // list the gateway reads for itself teaches the labels its tools and is held against their pins.
  const toolLists = new ToolListCache(pool, {
    onRead: (server, tools) => {
      audit.tools?.learn(
        server,
        tools.map((t) => t?.name),
      );
      if (pins?.watches(server)) pins.screen(server, tools);
    },
  });
  // Session ids are sealed under the key every instance shares (sessions on any instance).
  const seal = new SessionSeal(randomBytes(32));
  const ends = new SessionEnds(services.logger);
  const bus = new SessionBus(services.logger);
  const legacy = new LegacySessions(aggregator, services.logger, seal, ends, bus);
  const modern = new ModernEndpoint(aggregator, services.logger, seal, bus);
  pool.on('list_changed', (server: string, kind: ListKind) => {
    legacy.notifyListChanged(server, kind);
    modern.notifyListChanged(server, kind);
    // The new list is read at once (the cache forgot the old one first): its tools are the tool
    // labels its calls may show in metrics, and are held against their pins.
    const upstream = kind === 'tools' ? pool.get(server) : undefined;
    if (upstream?.status === 'ready') {
      if (pins?.watches(server)) pins.noteInstructions(server, upstream.instructions === undefined ? undefined : redactAnswer(upstream.instructions, upstream.secrets));
      toolLists.get(server).catch((err: Error) => services.logger.debug({ mcpServer: server, err: err.message }, 'could not list the tools of a tool server'));
    }
  });
  const remoteRelay = new RemoteRelay(seal, access, services.logger, ends);
  const processRelay = new ProcessRelay(access, services.logger, seal, bus);
  const parts: McpParts = {
    pool,
    aggregator,
    pins,
    toolLists,
    legacy,
    modern,
    audit,
    remoteRelay,
    processRelay,
    ends,
    bus,
    connections,
    serve: pool.readsCaller
      ? (ctx, res, identity, body, identityHeaders, steps) =>
          // The caller's own token (for a tool server whose auth.upstream exchanges it; it is never sent on itself), and who they are (for per_user_oauth).
          CALLER_CREDENTIAL.run(
            { token: bearerValue(ctx.headers.authorization), owner: ownerOf(identity), label: accountLabel(identity), base: publicBaseUrl(ctx.req, services.config) },
            () => route(parts, ctx, res, identity, body, identityHeaders, steps),
          )
      : // No tool server reads the caller: no scope (UpstreamServer.readsCaller).
        (ctx, res, identity, body, identityHeaders, steps) => route(parts, ctx, res, identity, body, identityHeaders, steps),
  };
  return parts;
}

/** Each user's connections to the tool servers of auth.upstream per_user_oauth (none without a store or such a server). */
function createConnections(services: GatewayServices): UserConnections | undefined {
  const servers = new Map<string, { auth: McpServerAuth; url: string }>();
  for (const [name, server] of Object.entries(services.config.mcpServers ?? {})) {
    if (server.enabled !== false && server.url && server.auth?.upstream === 'per_user_oauth') servers.set(name, { auth: server.auth, url: server.url });
  }
  const store = services.get(STORE);
  if (!store || !servers.size) return undefined;
  return new UserConnections(new ConnectionStore(store), () => services.get(SEALER), servers, services.logger);
}

/** The pins of the tool servers whose `pin` is not off (none without a store). */
function createPins(services: GatewayServices, audit: AuditLog): ToolPins | undefined {
  const modes = new Map<string, PinMode>();
  for (const [name, server] of Object.entries(services.config.mcpServers ?? {})) if (server.enabled !== false) modes.set(name, server.pin ?? 'warn');
  const store = services.get(STORE);
  if (!store || ![...modes.values()].some((mode) => mode !== 'off')) return undefined;
  const changes = services.metrics.counter(
    'gateway_mcp_pin_changes_total',
    'Tool, prompt and instruction definitions that differ from their pin (changed) or appeared after the first list (new), by tool server, kind, change and pin mode.',
    ['server', 'kind', 'change', 'pin'],
  );
  return new ToolPins(modes, new PinStore(store), audit, services.logger, changes);
}

/**
 * Hands one request to the transport that serves it: /mcp (every tool server the caller may
 * use, names `server__name`) or /mcp/<server> (one server, its own names), served by the
 * stateless revision (2026-07-28) or the handshake-era transport (sessions through the SDK),
 * with the lean relays for the busiest requests. The transport writes the answer itself.
 */
async function route(
  parts: McpParts,
  ctx: GatewayContext,
  res: ServerResponse,
  identity: Identity,
  body: unknown,
  identityHeaders: Record<string, string> | undefined,
  steps: AnswerSteps | undefined,
): Promise<void> {
  const pinned = ctx.params.server;
  if (isModernRequest(ctx.req)) return parts.modern.handle(ctx.req, res, identity, pinned, body, steps);
  if (!pinned && (await relayAggregatedCall(parts.remoteRelay, parts.aggregator, ctx.req, res, identity, body, identityHeaders, ctx.callerSignal, steps))) return;
  const server = pinned ? parts.pool.get(pinned) : undefined;
  // A server of the stateless revision keeps no sessions to relay: the gateway's own sessions translate.
  if (server?.kind === 'remote' && !server.protocolVersion)
    return parts.remoteRelay.handle(ctx.req, res, identity, server as RemoteServer, mcpMessageBytes(ctx), body, identityHeaders, ctx.callerSignal, steps);
  if (server?.kind === 'process') {
    const sessionId = headerValue(ctx.headers, 'mcp-session-id');
    if (sessionId ? ProcessRelay.owns(sessionId) : ctx.method === 'POST' && isInitializeRequest(body)) {
      return parts.processRelay.handle(ctx.req, res, identity, server as ProcessServer, body, steps);
    }
  }
  await parts.legacy.handle(ctx.req, res, identity, pinned, body, steps);
}
