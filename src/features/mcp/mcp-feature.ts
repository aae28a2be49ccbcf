import { defineFeature } from '../../kernel/config/features.js';

/**
 * The MCP feature's part of the gateway config: `mcpServers` (the tool servers), whose `env`
 * holds credentials, every value. The start-up line names the enabled tool servers; a cluster's
 * primary warns that sessions with process servers stay with one worker.
 */
export const mcpFeature = defineFeature({
  name: 'mcp',
  configKeys: ['mcpServers'],
  secretContainers: ['env'],
  startupFields: (config) => ({
    mcpServers: Object.entries(config.mcpServers ?? {})
      .filter(([, s]) => s.enabled !== false)
      .map(([name, s]) => `${name} (${s.url ? 'remote' : 'process'})`),
  }),
  clusterWarnings(config, workers) {
    const processServers = Object.entries(config.mcpServers ?? {}).filter(([, server]) => server.command && server.enabled !== false);
    if (!processServers.length) return [];
    return [
      {
        fields: { workers, servers: processServers.map(([name]) => name) },
        message:
          'server.workers: sessions with process tool servers (and on /mcp) stay with the worker that opened them; a client that keeps one and reconnects to another worker opens a new one',
      },
    ];
  },
});
