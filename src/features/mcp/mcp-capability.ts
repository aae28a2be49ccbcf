import type { Capability } from '../../kernel/capability.js';
import { ConfigError } from '../../kernel/config/load-config.js';
import { Aggregator } from './aggregator.js';
import { TRACING } from '../../kernel/engine/tracing.js';
import { AuditLog } from './audit.js';
import { MCP } from './mcp-services.js';
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
    const pool = new ServerPool(services.config, services.logger);
    const calls = services.metrics.counter('gateway_mcp_calls_total', 'Tool calls on /mcp, by tool server, tool and outcome (ok, tool_error, error, denied).', ['server', 'tool', 'outcome']);
    const audit = new AuditLog(services.logger, calls);
    const aggregator = new Aggregator(pool, audit, services.get(TRACING));
    const legacy = new LegacySessions(aggregator, services.logger);
    const modern = new ModernEndpoint(aggregator, services.logger);
    pool.on('list_changed', (server: string, kind: ListKind) => {
      legacy.notifyListChanged(server, kind);
      modern.notifyListChanged(server, kind);
    });
    for (const server of pool.servers.values()) services.readiness.set(`mcp:${server.name}`, () => server.status === 'ready');
    services.provide(MCP, { pool, aggregator, legacy, modern, audit });
    services.closers.push(async () => {
      modern.close();
      await legacy.close();
      await pool.close();
    });
  },
  async start(services) {
    await services.require(MCP).pool.start();
  },
  drain(services) {
    const parts = services.require(MCP);
    parts.modern.close();
    parts.legacy.drain();
  },
};
