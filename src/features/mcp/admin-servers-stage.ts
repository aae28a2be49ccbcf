import type { AdminMcpServersStageConfig } from '../../generated/stages/admin-mcp-servers.js';
import { schemaDocument } from '../../kernel/config/schema-validator.js';
import { RESPONSE, type GatewayContext, type Identity } from '../../kernel/engine/context.js';
import { defineStage } from '../../kernel/engine/stage.js';
import type { GatewayRouteSpec } from '../../contract/routes.js';
import { ADMIN, CONFIG_KEYS, TOKEN_SERVICE, canWrite } from '../auth/index.js';
import { authorize, patternReachesServer } from './authorization.js';
import { adminListQuery } from './admin-list-query.js';
import { MCP, TOOL_CALL_STATS } from './mcp-services.js';

/** A key or token that may use a server: its tools (the patterns that reach the server; null: every tool) and whether it may call them. */
interface GrantView {
  kind: 'config_key' | 'token';
  id: string;
  user: string | null;
  team: string | null;
  tools: string[] | null;
  call: boolean;
}

/** The most restricted tokens read per request for the grants. */
const MAX_GRANT_TOKENS = 1000;
const MAX_GRANTS_SHOWN = 50;

/**
 * GET /v1/admin/mcp/servers (the admin credential: admin or viewer): each tool server of the config
 * (`source: file`) with its transport, status (starting, ready, down, stopped; `not_loaded` before
 * the first /mcp request of a gateway whose tool servers load lazily), pin mode, how many tools it
 * lists (`tools_total`, from the tool list the gateway keeps of it; the tools themselves are paged
 * by GET /v1/admin/mcp/servers/{name}/tools), its calls, sessions and grants. `search` (a part of
 * the name), `limit` and `after` (a server name) page the servers.
 */
export default defineStage<AdminMcpServersStageConfig, GatewayContext<GatewayRouteSpec>>({
  name: 'admin-mcp-servers',
  description: 'GET /v1/admin/mcp/servers: tool servers, their status, how many tools each lists, calls, sessions and grants.',
  schema: schemaDocument('stages/admin-mcp-servers.schema.json'),
  requires: [ADMIN],
  writes: [RESPONSE],
  terminal: true,
  once: true,
  create(_config, services) {
    const endpoint = services.require(MCP);
    const configured = services.config.mcpServers ?? {};
    const tokens = services.get(TOKEN_SERVICE);
    const keys = services.get(CONFIG_KEYS);
    /** Who may use `server`: the config keys and the tokens with permissions of their own that reach it, and how many tokens have none. */
    const grantsOf = (server: string, identities: Identity[], unrestricted: number) => {
      const granted: GrantView[] = [];
      for (const identity of identities) {
        if (!authorize(identity, { action: 'list', server }).allowed) continue;
        const tools = identity.permissions?.tools?.filter((t) => patternReachesServer(t, server)) ?? null;
        granted.push({
          kind: identity.kind === 'token' ? 'token' : 'config_key',
          id: identity.id,
          user: identity.user ?? null,
          team: identity.team ?? null,
          tools,
          call: canWrite(identity.scopes),
        });
      }
      return { keys: granted.slice(0, MAX_GRANTS_SHOWN), keys_total: granted.length, tokens_without_permissions: unrestricted };
    };
    return async (ctx) => {
      const { limit, after, search } = adminListQuery(ctx.query);
      let names = Object.keys(configured).sort();
      if (search) names = names.filter((n) => n.toLowerCase().includes(search));
      if (after) names = names.filter((n) => n > after);
      const page = names.slice(0, limit);
      const parts = endpoint.hasServers ? await endpoint.load() : endpoint.parts;
      const tokenGrants = tokens ? await tokens.toolGrants(MAX_GRANT_TOKENS) : { restricted: [], unrestricted: 0 };
      const identities = [...(keys?.identities() ?? []), ...tokenGrants.restricted];
      const stats = services.get(TOOL_CALL_STATS);
      const data = await Promise.all(
        page.map(async (name) => {
          const config = configured[name]!;
          const server = parts?.pool.get(name);
          const pinMode = parts?.pins?.modeOf(name) ?? 'off';
          let toolsError: string | null = null;
          const [calls, toolsTotal] = await Promise.all([
            stats ? stats(name).catch(() => undefined) : undefined,
            server && server.status === 'ready'
              ? parts!.toolLists.get(name).then(
                  (list) => list?.tools.length ?? null,
                  (err: Error) => {
                    toolsError = `The tool list could not be read: ${err.message}`.slice(0, 300);
                    return null;
                  },
                )
              : null,
          ]);
          return {
            object: 'admin.mcp_server',
            name,
            source: 'file',
            enabled: config.enabled !== false,
            transport: config.url ? 'remote' : 'process',
            status: config.enabled === false ? 'disabled' : (server?.status ?? 'not_loaded'),
            pin: pinMode,
            /** Client sessions connected to the server through this instance now. */
            sessions: server?.linkCount ?? 0,
            calls: calls ? [...calls.values()].reduce((n, c) => n + c.calls, 0) : null,
            /** How many tools the server lists (GET .../servers/{name}/tools pages them); null: no list now. */
            tools_total: toolsTotal,
            tools_error: toolsError,
            grants: grantsOf(name, identities, tokenGrants.unrestricted),
          };
        }),
      );
      ctx.response = { kind: 'json', status: 200, body: { object: 'list', data, has_more: names.length > limit } };
    };
  },
});
