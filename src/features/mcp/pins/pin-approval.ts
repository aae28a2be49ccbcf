import type { McpPinApprovalStageConfig } from '../../../generated/stages/mcp-pin-approval.js';
import { schemaDocument } from '../../../kernel/config/schema-validator.js';
import type { GatewayContext } from '../../../kernel/engine/context.js';
import { defineStage } from '../../../kernel/engine/stage.js';
import { conflict, notFound, semanticError } from '../../../contract/errors/gateway-error.js';
import type { GatewayRouteSpec } from '../../../contract/routes.js';
import { ADMIN } from '../../auth/index.js';
import { MCP } from '../mcp-services.js';
import { INSTRUCTIONS_PIN, type ApprovedKind } from './tool-pins.js';
import { IDENTITY, RESPONSE } from '../../../kernel/engine/context.js';

type AdminContext = GatewayContext<GatewayRouteSpec>;

/**
 * POST /v1/admin/mcp/servers/{name}/tools/{tool}/approve (the admin credential): the
 * definition of `tool` last seen on server `name` (a change of its pinned one, or a tool that
 * appeared after the first list) becomes its pin; under `pin: strict` the tool is listed and
 * callable again. .../prompts/{prompt}/approve does the same for a prompt, and the tool name
 * `@instructions` (INSTRUCTIONS_PIN) for the server's instructions (under strict, a change of
 * them is advertised once approved; until then the pinned text is). 404 for a server or tool the gateway does not know; 409 when nothing waits.
 */
export default defineStage<McpPinApprovalStageConfig, AdminContext>({
  name: 'mcp-pin-approval',
  description: 'Approves the changed or new definition of a pinned MCP tool (the admin API).',
  schema: schemaDocument('stages/mcp-pin-approval.schema.json'),
  requires: [ADMIN],
  once: true,
  reads: [IDENTITY],
  writes: [RESPONSE],
  terminal: true,
  create(_config, services) {
    const endpoint = services.require(MCP);
    return async (ctx) => {
      const server = ctx.params.name!;
      const named = ctx.endpoint.operation === 'admin.mcp.prompts.approve' ? ctx.params.prompt! : ctx.params.tool!;
      // The server's instructions are approved on the tools route under a name no tool can have.
      const kind: ApprovedKind = ctx.endpoint.operation === 'admin.mcp.prompts.approve' ? 'prompt' : named === INSTRUCTIONS_PIN ? 'instructions' : 'tool';
      const tool = kind === 'instructions' ? '' : named;
      if (!endpoint.has(server)) throw notFound(`No tool server named ${server.slice(0, 128)}.`, 'name');
      const pins = (await endpoint.load()).pins;
      if (!pins || pins.modeOf(server) === 'off') throw semanticError(`Tool server ${server} pins no tools (mcpServers.${server}.pin is off).`, 'name');
      const pinned = await pins.pinned(server, tool, kind);
      if (kind === 'instructions') {
        if (!pinned) throw notFound(`Tool server ${server} has given the gateway no instructions yet.`, 'tool');
        const approved = await pins.approve(server, '', kind);
        if (!approved) throw conflict(`The instructions of server ${server} have no change waiting for approval.`, 'tool');
        services.logger.info({ audit: 'mcp.instructions.approve', requestId: ctx.id, mcpServer: server, digest: approved.digest }, 'mcp instructions approved');
        ctx.response = { kind: 'json', status: 200, body: { object: 'mcp.instructions_pin', server, tool: INSTRUCTIONS_PIN, digest: approved.digest, approved: true } };
        return;
      }
      if (!pinned) throw notFound(`Tool server ${server} has listed no ${kind} named ${tool.slice(0, 128)}.`, kind);
      const approved = await pins.approve(server, tool, kind);
      if (!approved) throw conflict(`The ${kind} ${tool.slice(0, 128)} of server ${server} has no change waiting for approval.`, kind);
      services.logger.info({ audit: `mcp.${kind}.approve`, requestId: ctx.id, mcpServer: server, [kind]: tool, digest: approved.digest }, `mcp ${kind} approved`);
      ctx.response = { kind: 'json', status: 200, body: { object: `mcp.${kind}_pin`, server, [kind]: tool, digest: approved.digest, approved: true } };
    };
  },
});
