import type { AnyStageDefinition } from '../../../kernel/engine/stage.js';
import authorize from './authorize.js';
import mcpForward from './mcp-forward.js';

/** The stages of the MCP feature: tool-server access by the caller's grants, and the hand-over to the MCP transport. Built-in stages (src/stages/builtin-stages.ts lists them). */
export const MCP_STAGES: AnyStageDefinition[] = [authorize, mcpForward];
