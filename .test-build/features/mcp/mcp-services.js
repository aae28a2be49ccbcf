import { defineService } from '../../kernel/engine/services.js';
export const MCP = defineService('mcp');
//# sourceMappingURL=mcp-services.js.map