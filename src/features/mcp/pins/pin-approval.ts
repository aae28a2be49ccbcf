import type { McpPinApprovalStageConfig } from '../../../generated/stages/mcp-pin-approval.js';
import { schemaDocument } from '../../../kernel/config/schema-validator.js';
import type { GatewayContext } from '../../../kernel/engine/context.js';
import { defineStage } from '../../../kernel/engine/stage.js';
import { conflict, notFound, semanticError } from '../../../contract/errors/gateway-error.js';
import type { GatewayRouteSpec } from '../../../contract/routes.js';
import { ADMIN } from '../../auth/index.js';
import { MCP } from '../mcp-services.js';
import { IDENTITY, RESPONSE } from '../../../kernel/engine/context.js';

type AdminContext = GatewayContext<GatewayRouteSpec>;

/**
 * POST /v1/admin/mcp/servers/{name}/tools/{tool}/approve (the admin credential): the
 * definition of `tool` last seen on server `name` (a change of its pinned one, or a tool that
 * appeared after the first list) becomes its pin; under `pin: strict` the tool is listed and
 * callable again. .../prompts/{prompt}/approve does the same for a prompt. 404 for a server or tool the gateway does not know; 409 when nothing waits.
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
      const kind = ctx.endpoint.operation === 'admin.mcp.prompts.approve' ? 'prompt' : 'tool';
      const tool = kind === 'prompt' ? ctx.params.prompt! : ctx.params.tool!;
      if (!endpoint.has(server)) throw notFound(`No tool server named ${server.slice(0, 128)}.`, 'name');
      const pins = (await endpoint.load()).pins;
      if (!pins || pins.modeOf(server) === 'off') throw semanticError(`Tool server ${server} pins no tools (mcpServers.${server}.pin is off).`, 'name');
      const pinned = await pins.pinned(server, tool, kind);
      if (!pinned) throw notFound(`Tool server ${server} has listed no ${kind} named ${tool.slice(0, 128)}.`, kind);
      const approved = await pins.approve(server, tool, kind);
      if (!approved) throw conflict(`The ${kind} ${tool.slice(0, 128)} of server ${server} has no change waiting for approval.`, kind);
      services.logger.info({ audit: `mcp.${kind}.approve`, requestId: ctx.id, mcpServer: server, [kind]: tool, digest: approved.digest }, `mcp ${kind} approved`);
      ctx.response = { kind: 'json', status: 200, body: { object: `mcp.${kind}_pin`, server, [kind]: tool, digest: approved.digest, approved: true } };
    };
  },
});
