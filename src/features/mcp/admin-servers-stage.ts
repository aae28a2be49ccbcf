import type { AdminMcpServersStageConfig } from '../../generated/stages/admin-mcp-servers.js';
import { schemaDocument } from '../../kernel/config/schema-validator.js';
import { RESPONSE, type GatewayContext, type Identity } from '../../kernel/engine/context.js';
import { defineStage } from '../../kernel/engine/stage.js';
import { badRequest } from '../../contract/errors/gateway-error.js';
import type { GatewayRouteSpec } from '../../contract/routes.js';
import { ADMIN, CONFIG_KEYS, TOKEN_SERVICE, canWrite } from '../auth/index.js';
import { authorize, patternReachesServer } from './authorization.js';
import { MCP, TOOL_CALL_STATS, type ToolCallStats } from './mcp-services.js';

/** The gateway itself, listing a server's tools for the admin API (no caller's identity travels). */
const GATEWAY_SELF: Identity = Object.freeze({ kind: 'gateway', id: 'gateway' }) as Identity;
const LIST_TIMEOUT_MS = 5000;
const MAX_TOOL_PAGES = 20;

interface ToolView {
  name: string;
  description: string | null;
  /** The pinned definition's digest (mcpServers.<name>.pin), and the one waiting for approval. */
  pinned_digest: string | null;
  pending_digest: string | null;
  /** Calls made with a gateway key, across instances (the usage ledger); null: not counted here. */
  calls: ToolCallStats | null;
}

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
 * the first /mcp request of a gateway whose tool servers load lazily), pin mode, and its tools as
 * the server lists them now, each with its pinned digest and any change waiting for approval.
 * `search` (a part of the name), `limit` and `after` (a server name) page the servers.
 */
export default defineStage<AdminMcpServersStageConfig, GatewayContext<GatewayRouteSpec>>({
  name: 'admin-mcp-servers',
  description: 'GET /v1/admin/mcp/servers: tool servers, their status, tools and pinned digests.',
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
      for (const name of ctx.query.keys()) if (!['limit', 'after', 'search'].includes(name)) throw badRequest(`Unknown query parameter ${name.slice(0, 64)}.`, name.slice(0, 64));
      const limitText = ctx.query.get('limit');
      if (limitText !== null && (!/^\d{1,3}$/.test(limitText) || Number(limitText) < 1 || Number(limitText) > 100))
        throw badRequest('limit must be an integer from 1 to 100.', 'limit');
      const limit = limitText === null ? 20 : Number(limitText);
      const search = ctx.query.get('search')?.toLowerCase();
      const after = ctx.query.get('after');
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
          const calls = stats ? await stats(name).catch(() => undefined) : undefined;
          let tools: ToolView[] | null = null;
          let toolsError: string | null = null;
          if (server && server.status === 'ready') {
            try {
              const listed: Record<string, unknown>[] = [];
              let cursor: string | undefined;
              for (let i = 0; i < MAX_TOOL_PAGES; i++) {
                const result = await server.request('tools/list', cursor ? { cursor } : {}, { identity: GATEWAY_SELF, signal: AbortSignal.timeout(LIST_TIMEOUT_MS) });
                if (Array.isArray(result.tools)) listed.push(...(result.tools as Record<string, unknown>[]));
                cursor = typeof result.nextCursor === 'string' && result.nextCursor ? result.nextCursor : undefined;
                if (!cursor) break;
              }
              tools = await Promise.all(
                listed.map(async (tool) => {
                  const toolName = String(tool.name);
                  const pin = pinMode !== 'off' ? await parts!.pins!.pinned(name, toolName) : undefined;
                  return {
                    name: toolName,
                    description: typeof tool.description === 'string' ? tool.description : null,
                    pinned_digest: pin?.digest ?? null,
                    pending_digest: pin?.pendingDigest ?? null,
                    calls: calls ? (calls.get(toolName) ?? { calls: 0, errors: 0, last_at: null }) : null,
                  };
                }),
              );
            } catch (err) {
              toolsError = `The tool list could not be read: ${(err as Error).message}`.slice(0, 300);
            }
          }
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
            tools,
            tools_error: toolsError,
            grants: grantsOf(name, identities, tokenGrants.unrestricted),
          };
        }),
      );
      ctx.response = { kind: 'json', status: 200, body: { object: 'list', data, has_more: names.length > limit } };
    };
  },
});
