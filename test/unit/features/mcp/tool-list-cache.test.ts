import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { ToolListCache, TOOL_LIST_TTL_MS } from '../../../../src/features/mcp/upstream/tool-list-cache.js';
import type { UpstreamServer } from '../../../../src/features/mcp/upstream/upstream-server.js';
import { pageOfTools } from '../../../../src/features/mcp/admin-tools-stage.js';

/** A tool server as the cache sees it: its status, capabilities and tools/list (pages of `pageSize`, each answer held until released when `hold`). */
class FakeServer {
  status = 'ready';
  capabilities: Record<string, unknown> | undefined = { tools: {} };
  lists = 0;
  requests = 0;
  fail: Error | undefined;
  hold = false;
  private held: Array<() => void> = [];
  constructor(
    readonly name: string,
    public tools: string[],
    private readonly pageSize = 1000,
  ) {}
  async request(method: string, params: { cursor?: string }): Promise<Record<string, unknown>> {
    expect(method).toBe('tools/list');
    this.requests++;
    if (!params.cursor) this.lists++;
    if (this.hold) await new Promise<void>((resolve) => this.held.push(resolve));
    if (this.fail) throw this.fail;
    const start = Number(params.cursor ?? 0);
    const next = start + this.pageSize;
    return {
      tools: this.tools.slice(start, next).map((name) => ({ name, description: `about ${name}` })),
      ...(next < this.tools.length ? { nextCursor: String(next) } : {}),
    };
  }
  release(): void {
    this.hold = false;
    for (const go of this.held.splice(0)) go();
  }
}

class FakePool extends EventEmitter {
  readonly servers = new Map<string, FakeServer>();
  add(server: FakeServer): FakeServer {
    this.servers.set(server.name, server);
    return server;
  }
  get(name: string): UpstreamServer | undefined {
    return this.servers.get(name) as unknown as UpstreamServer | undefined;
  }
}

function setUp(tools: string[], options: { pageSize?: number; ttlMs?: number } = {}) {
  const pool = new FakePool();
  const server = pool.add(new FakeServer('s', tools, options.pageSize));
  let now = 1_000_000;
  const read: Array<{ server: string; names: unknown[] }> = [];
  const cache = new ToolListCache(pool, {
    ttlMs: options.ttlMs,
    now: () => now,
    onRead: (name, listed) => read.push({ server: name, names: listed.map((t) => t.name) }),
  });
  return { pool, server, cache, read, advance: (ms: number) => (now += ms) };
}

describe('the tool list cache', () => {
  it('reads every page of a server’s list (nextCursor), sorted by name with each name once, and tells onRead the list as listed', async () => {
    const { server, cache, read } = setUp(['delta', 'alpha', 'Charlie', 'bravo', 'alpha', 'echo'], { pageSize: 2 });
    const list = await cache.get('s');
    expect(server.requests).toBe(3);
    expect(list!.names).toEqual(['Charlie', 'alpha', 'bravo', 'delta', 'echo']);
    expect(list!.lowerNames).toEqual(['charlie', 'alpha', 'bravo', 'delta', 'echo']);
    expect(list!.tools.map((t) => t.description)).toEqual(['about Charlie', 'about alpha', 'about bravo', 'about delta', 'about echo']);
    expect(read).toEqual([{ server: 's', names: ['delta', 'alpha', 'Charlie', 'bravo', 'alpha', 'echo'] }]);
  });

  it('shares one read between callers that miss at once, and serves the kept list until the TTL passed', async () => {
    const { server, cache, advance } = setUp(['a', 'b']);
    server.hold = true;
    const waiting = [cache.get('s'), cache.get('s'), cache.get('s')];
    await new Promise((r) => setImmediate(r));
    server.release();
    const lists = await Promise.all(waiting);
    expect(server.lists).toBe(1);
    expect(new Set(lists).size).toBe(1);
    advance(TOOL_LIST_TTL_MS - 1);
    await cache.get('s');
    expect(server.lists).toBe(1);
    server.tools = ['a', 'b', 'c'];
    advance(1);
    expect(cache.peek('s')).toBeUndefined();
    expect((await cache.get('s'))!.names).toEqual(['a', 'b', 'c']);
    expect(server.lists).toBe(2);
  });

  it('forgets a list when the pool says the server’s tools changed (its notification, a reconnect), not for prompts or another server', async () => {
    const { pool, server, cache } = setUp(['a']);
    const other = pool.add(new FakeServer('t', ['x']));
    await cache.get('s');
    await cache.get('t');
    pool.emit('list_changed', 's', 'prompts');
    pool.emit('list_changed', 't', 'tools');
    expect(cache.peek('s')).toBeDefined();
    expect(cache.peek('t')).toBeUndefined();
    server.tools = ['a', 'b'];
    pool.emit('list_changed', 's', 'tools');
    expect(cache.peek('s')).toBeUndefined();
    expect((await cache.get('s'))!.names).toEqual(['a', 'b']);
    expect([server.lists, other.lists]).toEqual([2, 1]);
  });

  it('is forgotten before the pool’s other listeners hear of a change (they read the new list)', async () => {
    const { pool, server, cache } = setUp(['a']);
    await cache.get('s');
    server.tools = ['a', 'new'];
    let seen: readonly string[] | undefined;
    pool.on('list_changed', () => void cache.get('s').then((list) => (seen = list?.names)));
    pool.emit('list_changed', 's', 'tools');
    await new Promise((r) => setImmediate(r));
    expect(seen).toEqual(['a', 'new']);
  });

  it('does not keep a read that started before the list changed', async () => {
    const { pool, server, cache } = setUp(['old']);
    server.hold = true;
    const early = cache.get('s');
    await new Promise((r) => setImmediate(r));
    pool.emit('list_changed', 's', 'tools');
    server.tools = ['new'];
    server.release();
    expect((await early)!.names).toEqual(['new']); // answered after the change; not kept all the same
    expect(cache.peek('s')).toBeUndefined();
    await cache.get('s');
    expect(server.lists).toBe(2);
  });

  it('keeps no failed read (its callers get the error; the next need reads again)', async () => {
    const { server, cache } = setUp(['a']);
    server.fail = new Error('boom');
    await expect(cache.get('s')).rejects.toThrow('boom');
    server.fail = undefined;
    expect((await cache.get('s'))!.names).toEqual(['a']);
    expect(server.lists).toBe(2);
  });

  it('has no list for a server that is not ready or unknown, and an empty one (nothing asked) for a server without tools', async () => {
    const { server, cache, read } = setUp(['a']);
    server.status = 'down';
    expect(await cache.get('s')).toBeUndefined();
    expect(await cache.get('nope')).toBeUndefined();
    server.status = 'ready';
    server.capabilities = { prompts: {} };
    expect((await cache.get('s'))!.tools).toEqual([]);
    expect(server.requests).toBe(0);
    expect(read).toEqual([]);
  });
});

describe('a page of a server’s tools (the admin API)', () => {
  const names = Array.from({ length: 30 }, (_, i) => `t${String(i).padStart(2, '0')}`);
  const list = {
    tools: names.map((name) => ({ name })),
    names,
    lowerNames: names,
    at: 0,
  };
  const page = (limit: number, after?: string, search?: string) => {
    const p = pageOfTools(list, { limit, after, search });
    return { names: p.tools.map((t) => t.name), has_more: p.has_more, total: p.total };
  };

  it('starts after `after` (a listed name or not) and says whether more follow', () => {
    expect(page(3)).toEqual({ names: ['t00', 't01', 't02'], has_more: true, total: 30 });
    expect(page(3, 't02')).toEqual({ names: ['t03', 't04', 't05'], has_more: true, total: 30 });
    expect(page(3, 't025')).toEqual({ names: ['t03', 't04', 't05'], has_more: true, total: 30 });
    expect(page(3, 't26')).toEqual({ names: ['t27', 't28', 't29'], has_more: false, total: 30 });
    expect(page(3, 't29')).toEqual({ names: [], has_more: false, total: 30 });
    expect(page(100, 'a')).toMatchObject({ has_more: false, total: 30 });
    expect(page(100, 'a').names).toHaveLength(30);
  });

  it('with a search, pages the matches and counts them all', () => {
    expect(page(4, undefined, '1')).toEqual({ names: ['t01', 't10', 't11', 't12'], has_more: true, total: 12 });
    expect(page(4, 't12', '1')).toEqual({ names: ['t13', 't14', 't15', 't16'], has_more: true, total: 12 });
    expect(page(4, 't17', '1')).toEqual({ names: ['t18', 't19', 't21'], has_more: false, total: 12 });
    expect(page(4, undefined, 'zz')).toEqual({ names: [], has_more: false, total: 0 });
  });
});
