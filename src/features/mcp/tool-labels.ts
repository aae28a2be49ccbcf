import type { Identity } from '../../kernel/engine/context.js';
import type { Logger } from '../../kernel/observability/logger.js';
import { KnownLabels } from '../../kernel/observability/known-labels.js';
import type { UpstreamServer } from './upstream/upstream-server.js';

/** The gateway itself, listing a server's tools for its metric labels. */
const GATEWAY_SELF: Identity = Object.freeze({ kind: 'gateway', id: 'gateway' }) as Identity;

/** Pages of tools/list read when learning a server's tools. */
const MAX_PAGES = 10;

/**
 * The label values of gateway_mcp_calls_total: a configured server's name (else `unknown`) and
 * a tool that server listed (else `unknown`), so made-up names never become series. A server's
 * tools are learned from its own tools/list answers: read when it connects or says its list
 * changed, and from the lists the gateway aggregates for callers.
 */
export class ToolLabels {
  private readonly known = new KnownLabels();

  constructor(private readonly servers: ReadonlySet<string>) {}

  /** The server and tool labels of one call. */
  of(server: string | undefined, tool: string | undefined): [string, string] {
    if (server === undefined || !this.servers.has(server)) return ['unknown', 'unknown'];
    return [server, this.known.pick(server, tool, 'unknown')];
  }

  /** Tool names `server` listed. */
  learn(server: string, names: Iterable<unknown>): void {
    if (!this.servers.has(server)) return;
    for (const name of names) if (typeof name === 'string') this.known.add(server, name);
  }

  /** Reads `server`'s tool list (best effort: a failure leaves what was known); `onTools` sees the whole list. */
  async refresh(server: UpstreamServer, logger: Logger, onTools?: (tools: Array<Record<string, unknown>>) => void): Promise<void> {
    if (server.status !== 'ready' || !server.capabilities?.tools) return;
    let cursor: string | undefined;
    const all: Array<Record<string, unknown>> = [];
    try {
      for (let page = 0; page < MAX_PAGES; page++) {
        const result = await server.request('tools/list', cursor ? { cursor } : {}, { identity: GATEWAY_SELF });
        const tools = Array.isArray(result.tools) ? (result.tools as Array<Record<string, unknown>>) : [];
        all.push(...tools);
        this.learn(
          server.name,
          tools.map((t) => t?.name),
        );
        cursor = typeof result.nextCursor === 'string' && result.nextCursor ? result.nextCursor : undefined;
        if (!cursor) break;
      }
      onTools?.(all);
    } catch (err) {
      logger.debug({ mcpServer: server.name, err: (err as Error).message }, 'could not list the tools of a tool server for metric labels');
    }
  }
}
