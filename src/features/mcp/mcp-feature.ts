import { defineFeature } from '../../kernel/config/features.js';

/** The MCP feature's part of the gateway config: `mcpServers` (the tool servers), whose `env` holds credentials, every value. */
export const mcpFeature = defineFeature({
  name: 'mcp',
  configKeys: ['mcpServers'],
  secretContainers: ['env'],
});
