// GET /v1/admin/mcp/servers/{name}/tools: a tool server's tools paged by the gateway (sorted by
// name, keyset `after`, `search`, `limit`, `total`) from the tool list it keeps of the server, and
// GET /v1/admin/mcp/servers giving each server's `tools_total` instead of every tool. The process
// tool server of the tests lists 250 more tools, 40 a page (nextCursor), and counts its lists.
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient, eventually, textOf } from '../../helpers/mcp.js';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';

const ADMIN = 'admin-token-mcp-tools-0001-0123456789abcdef';
const VIEWER_KEY = 'cfg-mcp-tools-viewer-0002-0123456789abcdef';
const TEAM_ADMIN_KEY = 'cfg-mcp-tools-teamadm-0003-0123456789abcdef';
const CALLER = 'cfg-mcp-tools-caller-0004-0123456789abcdef';
const TOOL_SERVER = join(import.meta.dirname, '..', '..', 'helpers', 'stdio-tool-server.mjs');

const BULK = Array.from({ length: 250 }, (_, i) => `bulk_${String(i).padStart(3, '0')}`);
/** Every tool the server lists, in the order the admin API gives them (by name, code unit order). */
const ALL = ['whoami', 'echo', 'crash', 'add-tool', 'env', 'list-count', ...BULK].sort();

async function get(url: string, path: string, token = ADMIN) {
  const res = await request(`${url}${path}`, { headers: { authorization: `Bearer ${token}` } });
  const text = await res.body.text();
  return { status: res.statusCode, json: JSON.parse(text) as any };
}

const names = (page: any): string[] => page.json.data.map((t: any) => t.name);

describe('GET /v1/admin/mcp/servers/{name}/tools', { timeout: 90_000 }, () => {
  let gw: TestGateway;
  let client: Client;
  const tools = (query = '', token = ADMIN) => get(gw.url, `/v1/admin/mcp/servers/bulk/tools${query}`, token);
  /** tools/list requests the server answered on the gateway's shared connection. */
  const listCount = async () => Number(textOf(await client.callTool({ name: 'bulk__list-count', arguments: {} })));

  beforeAll(async () => {
    gw = await startGateway({
      logging: { level: 'warn' },
      auth: {
        enabled: true,
        type: 'api-key',
        adminToken: ADMIN,
        apiKeys: [
          { key: VIEWER_KEY, user: 'vera@example.com', roles: ['viewer'] },
          { key: TEAM_ADMIN_KEY, user: 'tess@example.com', team: 'search', roles: ['team_admin'] },
          { key: CALLER, user: 'cal@example.com' },
        ],
      },
      mcpServers: {
        bulk: { command: process.execPath, args: [TOOL_SERVER, '--bulk', '250', '--page', '40'], pin: 'warn' },
        resting: { command: process.execPath, args: [TOOL_SERVER], enabled: false },
      },
    });
    await eventually(async () => (await tools()).status === 200, 20_000, 'the tool server connected');
    client = await connectClient(`${gw.url}/mcp`, { 'x-api-key': CALLER });
  });
  afterAll(async () => {
    await client?.close();
    await gw?.close();
  });

  it('pages every tool the server lists (all its pages read), sorted by name: limit (default 20), after, has_more, total', async () => {
    const first = await tools('?limit=20');
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({ object: 'list', has_more: true, total: ALL.length });
    expect(names(first)).toEqual(ALL.slice(0, 20));
    expect(first.json.data[1]).toMatchObject({ name: 'bulk_000', description: 'Bulk tool bulk_000' });
    expect(names(await tools())).toEqual(ALL.slice(0, 20));

    const seen: string[] = [];
    let after: string | undefined;
    for (let i = 0; i < 10; i++) {
      const page = await tools(`?limit=100${after ? `&after=${after}` : ''}`);
      seen.push(...names(page));
      expect(page.json.total).toBe(ALL.length);
      if (!page.json.has_more) break;
      after = seen[seen.length - 1];
    }
    expect(seen).toEqual(ALL);

    // `after` need not be a listed name: the page starts with the first name after it.
    expect(names(await tools('?limit=3&after=bulk_1'))).toEqual(['bulk_100', 'bulk_101', 'bulk_102']);
    const last = await tools(`?after=${ALL[ALL.length - 1]}`);
    expect(last.json).toEqual({ object: 'list', data: [], has_more: false, total: ALL.length });
  });

  it('searches a part of the name in any case; a search pages with after, and total counts its matches', async () => {
    const found = await tools('?search=BULK_01&limit=4');
    expect(found.json).toMatchObject({ has_more: true, total: 10 });
    expect(names(found)).toEqual(['bulk_010', 'bulk_011', 'bulk_012', 'bulk_013']);
    const next = await tools('?search=bulk_01&limit=4&after=bulk_013');
    expect(names(next)).toEqual(['bulk_014', 'bulk_015', 'bulk_016', 'bulk_017']);
    expect(next.json).toMatchObject({ has_more: true, total: 10 });
    const end = await tools('?search=Bulk_01&limit=4&after=bulk_017');
    expect(end.json).toMatchObject({ has_more: false, total: 10 });
    expect(names(end)).toEqual(['bulk_018', 'bulk_019']);
    expect((await tools('?search=no-such-tool')).json).toEqual({ object: 'list', data: [], has_more: false, total: 0 });
  });

  it('refuses a bad limit or an unknown parameter as the servers route does, and an unknown server with a 404, in the contract shape', async () => {
    for (const limit of ['0', '101', 'ten', '1.5', '-1']) {
      const bad = await tools(`?limit=${limit}`);
      expect(bad.status, limit).toBe(400);
      expect(bad.json.error, limit).toMatchObject({ param: 'limit', message: 'limit must be an integer from 1 to 100.' });
      expect((await get(gw.url, `/v1/admin/mcp/servers?limit=${limit}`)).json.error, limit).toEqual(bad.json.error);
    }
    const unknown = await tools('?page=2');
    expect(unknown.status).toBe(400);
    expect(unknown.json.error).toMatchObject({ param: 'page' });

    const missing = await get(gw.url, '/v1/admin/mcp/servers/no-such-server/tools');
    expect(missing.status).toBe(404);
    expect(missing.json).toMatchObject({ status: 'failure', error: { code: 'not_found', param: 'name', message: expect.stringContaining('no-such-server') } });
    // A server of the config that is disabled has no tools to list now.
    expect((await get(gw.url, '/v1/admin/mcp/servers/resting/tools')).status).toBe(503);
  });

  it('is read by the admin and viewer roles only', async () => {
    expect((await tools('', VIEWER_KEY)).status).toBe(200);
    expect((await tools('', TEAM_ADMIN_KEY)).status).toBe(403);
    expect((await tools('', CALLER)).status).toBe(403);
    expect((await tools('', 'not-a-key-0123456789abcdef0123456789')).status).toBe(401);
  });

  it('shows each tool’s pinned digest and its calls', async () => {
    // The server's first list pinned every tool (pin: warn).
    const echo = await eventually(
      async () => {
        const [tool] = (await tools('?search=echo')).json.data;
        return tool?.pinned_digest ? tool : undefined;
      },
      20_000,
      'echo pinned',
    );
    expect(echo.pinned_digest).toMatch(/^[0-9a-f]{64}$/);
    expect(echo.pending_digest).toBeNull();
    expect(textOf(await client.callTool({ name: 'bulk__echo', arguments: { text: 'hi' } }))).toBe('echo: hi');
    const called = await eventually(
      async () => {
        const [tool] = (await tools('?search=echo')).json.data;
        return tool?.calls?.calls === 1 ? tool : undefined;
      },
      20_000,
      'the call in the ledger',
    );
    expect(called.calls).toMatchObject({ calls: 1, errors: 0, last_at: expect.any(Number) });
    expect((await tools('?search=whoami')).json.data[0].calls).toEqual({ calls: 0, errors: 0, last_at: null });
  });

  it('GET /v1/admin/mcp/servers gives each server its tools_total, not its tools', async () => {
    const servers = await get(gw.url, '/v1/admin/mcp/servers');
    const bulk = servers.json.data.find((s: any) => s.name === 'bulk');
    expect(bulk).toMatchObject({ status: 'ready', tools_total: ALL.length, tools_error: null });
    expect(bulk).not.toHaveProperty('tools');
    expect(servers.json.data.find((s: any) => s.name === 'resting')).toMatchObject({ status: 'disabled', tools_total: null });
  });

  it('reads the server’s list once for many requests; reads it again when the server says its list changed, and after it restarted', async () => {
    await tools();
    const before = await listCount();
    for (let i = 0; i < 5; i++) {
      await tools(`?limit=${10 + i}`);
      await get(gw.url, '/v1/admin/mcp/servers');
    }
    expect(await listCount()).toBe(before);

    // add-tool adds a tool and sends notifications/tools/list_changed: the kept list is dropped and read again.
    await client.callTool({ name: 'bulk__add-tool', arguments: { name: 'zz_made_later' } });
    const added = await eventually(
      async () => {
        const page = await tools('?search=made_later');
        return page.json.total === 1 ? page : undefined;
      },
      10_000,
      'the added tool listed',
    );
    expect(names(added)).toEqual(['zz_made_later']);
    expect((await tools()).json.total).toBe(ALL.length + 1);

    // The process restarts (a new process, without the added tool): its list is read again.
    await client.callTool({ name: 'bulk__crash', arguments: {} });
    await eventually(
      async () => {
        const page = await tools('?search=made_later');
        return page.status === 200 && page.json.total === 0;
      },
      20_000,
      'the restarted server’s list',
    );
    expect((await tools()).json.total).toBe(ALL.length);
  });
});
