import type { Capability } from '../../kernel/capability.js';
import { ConfigError } from '../../kernel/config/load-config.js';
import { Aggregator } from './aggregator.js';
import { TRACING } from '../../kernel/engine/tracing.js';
import { AuditLog } from './audit.js';
import { randomBytes } from 'node:crypto';
import { MCP } from './mcp-services.js';
import { ProcessRelay } from './relay/process-relay.js';
import { RemoteRelay } from './relay/remote-relay.js';
import { sharedSessionKey } from './relay/session-key.js';
import { SessionSeal } from './relay/session-seal.js';
import { SessionEnds } from './relay/session-ends.js';
import { SessionBus } from './relay/session-bus.js';
import { LegacySessions } from './transport/legacy-sessions.js';
import { ModernEndpoint } from './transport/modern-http.js';
import { mcpServerProblems, ServerPool } from './upstream/server-pool.js';
import type { ListKind } from './upstream/upstream-server.js';

/**
 * The tool-server endpoint: tool servers of mcpServers (processes and remote servers, shared,
 * restarted, in /ready), aggregated behind /mcp and /mcp/<server> (served by the stages of
 * pipelines/mcp.yaml), with list-changed notifications relayed to connected clients. Needs the
 * store and auth capabilities before it.
 */
export const mcpCapability: Capability = {
  name: 'mcp',
  setup(services) {
    const problems = mcpServerProblems(services.config);
    if (problems.length) throw new ConfigError(problems, 'mcpServers');
    // Tool servers and the sessions on them are kept across a reload while their settings are unchanged.
    const settings = { mcpServers: services.config.mcpServers, identityForwarding: services.config.identityForwarding };
    const parts = services.resources.keep(
      'mcp',
      settings,
      () => {
        const pool = new ServerPool(services.config, services.logger);
        const calls = services.metrics.counter('gateway_mcp_calls_total', 'Tool calls on /mcp, by tool server, tool and outcome (ok, tool_error, error, denied).', [
          'server',
          'tool',
          'outcome',
        ]);
        const audit = new AuditLog(services.logger, calls);
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
        });
        const remoteRelay = new RemoteRelay(seal, audit, services.logger);
        const processRelay = new ProcessRelay(audit, services.logger, seal, bus);
        return { pool, aggregator, legacy, modern, audit, remoteRelay, processRelay, ends, bus };
      },
      async ({ pool, legacy, modern, processRelay, bus }) => {
        modern.close();
        // Before the bus closes: requests other instances hold for this one's process sessions are told the sessions ended.
        await processRelay.close();
        // ...and the subscriptions this instance's copies of /mcp sessions hold are no longer named as held here.
        await legacy.letGo();
        bus.close();
        await legacy.close();
        await pool.close();
      },
    );
    for (const server of parts.pool.servers.values()) services.readiness.set(`mcp:${server.name}`, () => server.status === 'ready');
    services.provide(MCP, parts);
  },
  async start(services) {
    if (services.resources.wasKept('mcp')) return; // started by the config it was kept from
    const parts = services.require(MCP);
    // Relayed session ids are sealed under the key every instance shares (sessions on any instance).
    if (parts.pool.servers.size) {
      parts.remoteRelay.seal.useKey(await sharedSessionKey(services));
      // Sessions ended on one instance are ended on all (any instance serves a session from its id).
      await parts.ends.connect(services);
      // With Redis, what a client says to a session's other instance reaches it (answers, cancellations, server-stream notifications).
      await parts.bus.connect(services).catch((err: Error) => services.logger.warn({ err: err.message }, 'MCP session messages stay on each instance'));
    }
    await parts.pool.start();
  },
  drain(services) {
    const parts = services.require(MCP);
    // Shutting down: a tool server that goes away is not started again.
    parts.pool.stopRestarts();
    parts.modern.close();
    parts.legacy.drain();
    parts.pool.drain();
    parts.processRelay.drain();
  },
};
