import type { Capability } from '../capability.js';
import { getExtension } from '../engine/services.js';
import { ConfigError } from '../config/load-config.js';
import { getMcpAuthenticator } from '../auth/auth-capability.js';
import { Aggregator } from './aggregator.js';
import { AuditLog } from './audit.js';
import { LegacySessions } from './transport/legacy-sessions.js';
import { mountMcpRoutes } from './transport/mcp-routes.js';
import { ModernEndpoint } from './transport/modern-http.js';
import { mcpServerProblems, ServerPool } from './upstream/server-pool.js';
import type { ListKind } from './upstream/upstream-server.js';

interface McpParts {
  pool: ServerPool;
  aggregator: Aggregator;
  legacy: LegacySessions;
  modern: ModernEndpoint;
  audit: AuditLog;
}

export const MCP_EXTENSION = 'mcp';

/**
 * The tool-server endpoint: tool servers of mcpServers (processes and remote servers, shared,
 * restarted, in /ready), aggregated behind /mcp and /mcp/<server>, with list-changed
 * notifications relayed to connected clients. Needs the store and auth capabilities before it.
 */
export const mcpCapability: Capability = {
  name: 'mcp',
  setup(services) {
    const problems = mcpServerProblems(services.config);
    if (problems.length) throw new ConfigError(problems, 'mcpServers');
    const pool = new ServerPool(services.config, services.logger);
    const audit = new AuditLog(services.logger);
    const aggregator = new Aggregator(pool, audit);
    const legacy = new LegacySessions(aggregator, services.logger);
    const modern = new ModernEndpoint(aggregator, services.logger);
    pool.on('list_changed', (server: string, kind: ListKind) => {
      legacy.notifyListChanged(server, kind);
      modern.notifyListChanged(server, kind);
    });
    for (const server of pool.servers.values()) services.readiness.set(`mcp:${server.name}`, () => server.status === 'ready');
    services.extensions.set(MCP_EXTENSION, { pool, aggregator, legacy, modern, audit } satisfies McpParts);
    services.closers.push(async () => {
      modern.close();
      await legacy.close();
      await pool.close();
    });
  },
  routes(app, services) {
    const parts = getExtension<McpParts>(services, MCP_EXTENSION)!;
    mountMcpRoutes(app, services, { ...parts, authenticator: getMcpAuthenticator(services) });
  },
  async start(services) {
    await getExtension<McpParts>(services, MCP_EXTENSION)!.pool.start();
  },
  drain(services) {
    const parts = getExtension<McpParts>(services, MCP_EXTENSION)!;
    parts.modern.close();
    parts.legacy.drain();
  },
};
