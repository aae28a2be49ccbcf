import type { Identity } from '../../../kernel/engine/context.js';
import type { ListKind, UpstreamServer } from './upstream-server.js';

type Item = Record<string, unknown>;

/** The gateway itself, listing a server's tools (no caller's identity travels). */
const GATEWAY_SELF: Identity = Object.freeze({ kind: 'gateway', id: 'gateway' }) as Identity;

/** How long a server's tool list is served from the cache without asking the server again. */
export const TOOL_LIST_TTL_MS = 30_000;
/** Pages of tools/list read at most (nextCursor followed). */
const MAX_PAGES = 50;

/** One server's tools as it listed them last, sorted by name (each name once). */
export interface ToolList {
  readonly tools: readonly Item[];
  /** The tools' names, in the same order (what keyset paging compares). */
  readonly names: readonly string[];
  /** The names lower-cased, in the same order (what a search matches). */
  readonly lowerNames: readonly string[];
  /** When the server answered (ms since the epoch). */
  readonly at: number;
}

/** Where the tool servers come from and what tells the cache a list changed (the server pool). */
export interface ToolListSource {
  get(name: string): UpstreamServer | undefined;
  prependListener(event: 'list_changed', listener: (server: string, kind: ListKind) => void): unknown;
}

interface Entry {
  list?: ToolList;
  /** The read under way, shared by every caller that missed meanwhile. */
  pending?: Promise<ToolList | undefined>;
  /** Moves on each invalidation: a read that started before it is not kept. */
  generation: number;
}

/**
 * The tools of each tool server as the gateway read them (tools/list, every page), kept for the
 * admin API, the metric labels and the pins: read on the first need, then reused until the server
 * says its list changed (notifications/tools/list_changed), it reconnects or goes down (the pool
 * says the same then), or `ttlMs` passed. Callers that miss at once share one read. A server that
 * is not ready has no list (undefined); a read that fails is not kept (the callers see its error).
 */
export class ToolListCache {
  private readonly entries = new Map<string, Entry>();
  private readonly ttlMs: number;
  private readonly now: () => number;
  private readonly onRead?: (server: string, tools: Item[]) => void;

  constructor(
    private readonly source: ToolListSource,
    options: {
      ttlMs?: number;
      now?: () => number;
      /** Sees each list read from a server (the whole list, as listed): metric labels, pins. */
      onRead?: (server: string, tools: Item[]) => void;
    } = {},
  ) {
    this.ttlMs = options.ttlMs ?? TOOL_LIST_TTL_MS;
    this.now = options.now ?? Date.now;
    this.onRead = options.onRead;
    // First among the pool's listeners: whoever reacts to the change after it reads the new list.
    source.prependListener('list_changed', (server, kind) => {
      if (kind === 'tools') this.invalidate(server);
    });
  }

  /** Forgets `server`'s list: the next need reads it again. */
  invalidate(server: string): void {
    const entry = this.entries.get(server);
    if (!entry) return;
    entry.generation++;
    entry.list = undefined;
    entry.pending = undefined;
  }

  /** The list kept for `server` now, without reading (undefined: none, or it expired). */
  peek(server: string): ToolList | undefined {
    const list = this.entries.get(server)?.list;
    return list && this.now() - list.at < this.ttlMs ? list : undefined;
  }

  /** `server`'s tools: the kept list, or one read now (shared with the other callers waiting for it). */
  get(server: string): Promise<ToolList | undefined> {
    const kept = this.peek(server);
    if (kept) return Promise.resolve(kept);
    let entry = this.entries.get(server);
    if (!entry) this.entries.set(server, (entry = { generation: 0 }));
    if (entry.pending) return entry.pending;
    const upstream = this.source.get(server);
    if (!upstream || upstream.status !== 'ready') return Promise.resolve(undefined);
    const generation = entry.generation;
    const pending = this.read(upstream).then(
      (list) => {
        if (entry.generation === generation) {
          entry.pending = undefined;
          entry.list = list;
        }
        return list;
      },
      (err: unknown) => {
        if (entry.generation === generation) entry.pending = undefined;
        throw err;
      },
    );
    entry.pending = pending;
    return pending;
  }

  private async read(server: UpstreamServer): Promise<ToolList> {
    // A server without tools lists none (and is not asked).
    if (!server.capabilities?.tools) return { tools: [], names: [], lowerNames: [], at: this.now() };
    const listed: Item[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const result = await server.request('tools/list', cursor ? { cursor } : {}, { identity: GATEWAY_SELF });
      if (Array.isArray(result.tools)) listed.push(...(result.tools as Item[]));
      cursor = typeof result.nextCursor === 'string' && result.nextCursor ? result.nextCursor : undefined;
      if (!cursor) break;
    }
    const at = this.now();
    this.onRead?.(server.name, listed);
    const byName = new Map<string, Item>();
    for (const tool of listed) if (tool && typeof tool.name === 'string' && !byName.has(tool.name)) byName.set(tool.name, tool);
    const names = [...byName.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return { tools: names.map((n) => byName.get(n)!), names, lowerNames: names.map((n) => n.toLowerCase()), at };
  }
}
