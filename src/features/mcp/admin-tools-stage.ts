import type { AdminMcpToolsStageConfig } from '../../generated/stages/admin-mcp-tools.js';
import { schemaDocument } from '../../kernel/config/schema-validator.js';
import { RESPONSE, type GatewayContext } from '../../kernel/engine/context.js';
import { defineStage } from '../../kernel/engine/stage.js';
import { GatewayError, notFound } from '../../contract/errors/gateway-error.js';
import type { GatewayRouteSpec } from '../../contract/routes.js';
import { ADMIN } from '../auth/index.js';
import { adminListQuery, type AdminListQuery } from './admin-list-query.js';
import { MCP, TOOL_CALL_STATS, type ToolCallStats } from './mcp-services.js';
import type { ToolList } from './upstream/tool-list-cache.js';

/** One tool of a server as the admin API shows it. */
export interface AdminToolView {
  name: string;
  description: string | null;
  /** The pinned definition's digest (mcpServers.<name>.pin), and the one waiting for approval. */
  pinned_digest: string | null;
  pending_digest: string | null;
  /** Calls made with a gateway key, across instances (the usage ledger); null: not counted here. */
  calls: ToolCallStats | null;
}

/** The first index of the sorted `names` whose name comes after `after` (0 without it). */
function startAfter(names: readonly string[], after: string | undefined): number {
  if (after === undefined) return 0;
  let lo = 0;
  let hi = names.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (names[mid]! <= after) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** One page of a server's tools (sorted by name): those matching `search`, after `after`; `total` counts every match. */
export function pageOfTools(list: ToolList, query: AdminListQuery): { tools: Record<string, unknown>[]; has_more: boolean; total: number } {
  const { limit, after, search } = query;
  const start = startAfter(list.names, after);
  if (search === undefined) {
    return { tools: list.tools.slice(start, start + limit), has_more: start + limit < list.tools.length, total: list.tools.length };
  }
  const tools: Record<string, unknown>[] = [];
  let total = 0;
  let hasMore = false;
  for (let i = 0; i < list.lowerNames.length; i++) {
    if (!list.lowerNames[i]!.includes(search)) continue;
    total++;
    if (i < start) continue;
    if (tools.length < limit) tools.push(list.tools[i]!);
    else hasMore = true;
  }
  return { tools, has_more: hasMore, total };
}

/**
 * GET /v1/admin/mcp/servers/{name}/tools (the admin credential: admin or viewer): one page of a tool
 * server's tools, sorted by name, from the tool list the gateway keeps of the server (read by
 * tools/list, every page, and kept until the server says its list changed, it reconnects, or a
 * short time passed). `search` (a part of the name, any case), `after` (a tool name) and `limit`
 * (1 to 100, default 20) page it; `total` counts every tool that matches. Each tool with its
 * pinned digest and any change waiting for approval (the page's pins read at once) and its calls.
 * 404 for a server the config does not name; 503 while the server is not connected.
 */
export default defineStage<AdminMcpToolsStageConfig, GatewayContext<GatewayRouteSpec>>({
  name: 'admin-mcp-tools',
  description: 'GET /v1/admin/mcp/servers/{name}/tools: one page of a tool server’s tools with their pinned digests and calls.',
  schema: schemaDocument('stages/admin-mcp-tools.schema.json'),
  requires: [ADMIN],
  writes: [RESPONSE],
  terminal: true,
  once: true,
  create(_config, services) {
    const endpoint = services.require(MCP);
    const configured = services.config.mcpServers ?? {};
    return async (ctx) => {
      const name = ctx.params.name!;
      if (!Object.hasOwn(configured, name)) throw notFound(`No tool server named ${name.slice(0, 128)}.`, 'name');
      const query = adminListQuery(ctx.query);
      if (configured[name]!.enabled === false) throw new GatewayError('service_unavailable', `Tool server ${name} is disabled (mcpServers.${name}.enabled).`);
      const parts = endpoint.hasServers ? await endpoint.load() : endpoint.parts;
      const server = parts?.pool.get(name);
      if (!parts || !server || server.status !== 'ready')
        throw new GatewayError('service_unavailable', `Tool server ${name} is not connected (${server?.status ?? 'not loaded'}): its tools cannot be listed now.`);
      let list: ToolList | undefined;
      try {
        list = await parts.toolLists.get(name);
      } catch (err) {
        throw new GatewayError('provider_error', `The tool list of server ${name} could not be read: ${(err as Error).message}`.slice(0, 300));
      }
      if (!list) throw new GatewayError('service_unavailable', `Tool server ${name} is not connected: its tools cannot be listed now.`);
      const page = pageOfTools(list, query);
      const names = page.tools.map((t) => String(t.name));
      const pins = parts.pins && parts.pins.modeOf(name) !== 'off' ? parts.pins : undefined;
      const stats = services.get(TOOL_CALL_STATS);
      const [pinned, calls] = await Promise.all([pins ? pins.pinnedNamed(name, names) : undefined, stats ? stats(name).catch(() => undefined) : undefined]);
      const data: AdminToolView[] = page.tools.map((tool) => {
        const toolName = String(tool.name);
        const pin = pinned?.get(toolName);
        return {
          name: toolName,
          description: typeof tool.description === 'string' ? tool.description : null,
          pinned_digest: pin?.digest || null,
          pending_digest: pin?.pendingDigest ?? null,
          calls: calls ? (calls.get(toolName) ?? { calls: 0, errors: 0, last_at: null }) : null,
        };
      });
      ctx.response = { kind: 'json', status: 200, body: { object: 'list', data, has_more: page.has_more, total: page.total } };
    };
  },
});
