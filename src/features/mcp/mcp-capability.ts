import type { Capability } from '../../kernel/capability.js';
import { ConfigError } from '../../kernel/config/load-config.js';
import { McpEndpoint } from './mcp-endpoint.js';
import { MCP } from './mcp-services.js';
import { sharedSessionKey } from './relay/session-key.js';
import { mcpServerProblems } from './upstream/server-config.js';
import { PIN_MIGRATIONS } from './pins/pin-store.js';
import { CONNECTION_MIGRATIONS } from './connections/connection-store.js';
import pinApproval from './pins/pin-approval.js';
import adminServers from './admin-servers-stage.js';
import adminTools from './admin-tools-stage.js';
import mcpConnections from './connections/connections-stage.js';
import { STORE } from '../../kernel/store/store-capability.js';

/**
 * The tool-server endpoint: tool servers of mcpServers (processes and remote servers, shared,
 * restarted, in /ready), aggregated behind /mcp and /mcp/<server> (served by the stages of
 * pipelines/mcp.yaml), with list-changed notifications relayed to connected clients. Needs the
 * store and auth capabilities before it. The MCP layer (and the SDK) is loaded at start-up only
 * when the config names tool servers; otherwise on the first request to /mcp.
 */
export const mcpCapability: Capability = {
  name: 'mcp',
  async setup(services) {
    const problems = mcpServerProblems(services.config);
    if (problems.length) throw new ConfigError(problems, 'mcpServers');
    // Tool servers and the sessions on them are kept across a reload while their settings are unchanged.
    const settings = { mcpServers: services.config.mcpServers, identityForwarding: services.config.identityForwarding };
    const endpoint = services.resources.keep(
      'mcp',
      settings,
      () => new McpEndpoint(services),
      (kept) => kept.close(),
    );
    services.provide(MCP, endpoint);
    services.stages.register(pinApproval);
    services.stages.register(adminServers);
    services.stages.register(adminTools);
    services.stages.register(mcpConnections);
    if (!endpoint.hasServers) return;
    // Pinned tool definitions live in the store every instance shares.
    const store = services.get(STORE);
    if (store) await store.migrate(PIN_MIGRATIONS);
    // Each user's connections to servers of auth.upstream per_user_oauth, sealed, shared by instances.
    if (store && Object.values(services.config.mcpServers ?? {}).some((s) => s.auth?.upstream === 'per_user_oauth')) await store.migrate(CONNECTION_MIGRATIONS);
    const parts = await endpoint.load();
    for (const server of parts.pool.servers.values()) {
      // A per_user_oauth server may refuse the gateway's own connection (it has no user token): it does not hold up /ready.
      if (services.config.mcpServers?.[server.name]?.auth?.upstream === 'per_user_oauth') continue;
      services.readiness.set(`mcp:${server.name}`, () => server.status === 'ready');
    }
  },
  async start(services) {
    if (services.resources.wasKept('mcp')) return; // started by the config it was kept from
    const parts = services.require(MCP).parts;
    // Without tool servers the parts are loaded on the first request, with nothing to start.
    if (!parts) return;
    // Relayed session ids are sealed under the key every instance shares (sessions on any instance).
    if (parts.pool.servers.size) {
      parts.remoteRelay.seal.useKey(await sharedSessionKey(services));
      // Sessions ended on one instance are ended on all (any instance serves a session from its id).
      await parts.ends.connect(services);
      // With Redis, what a client says to a session's other instance reaches it (answers, cancellations, server-stream notifications).
      await parts.bus.connect(services).catch((err: Error) => services.logger.warn({ err: err.message }, 'MCP session messages stay on each instance'));
    }
    // The pins are read before the servers' first lists are judged against them.
    await parts.pins?.load();
    await parts.pool.start();
  },
  drain(services) {
    // Shutting down: a tool server that goes away is not started again.
    services.require(MCP).drain();
  },
};
