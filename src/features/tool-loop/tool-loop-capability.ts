import type { Capability } from '../../kernel/capability.js';
import toolLoop from './tool-loop-stage.js';

/**
 * Tools for any model: the `tool-loop` stage, which runs the MCP tool loop for requests whose
 * `mcp` tools name the gateway's tool servers (pipelines/responses.yaml places it).
 */
export const toolLoopCapability: Capability = {
  name: 'tool-loop',
  setup(services) {
    services.stages.register(toolLoop);
  },
};
