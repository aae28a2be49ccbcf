import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient } from '../../helpers/mcp.js';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';

const ADMIN = 'admin-token-admin-reads-0001-0123456789abcdef';
const VIEWER_KEY = 'cfg-admin-reads-viewer-0002-0123456789abcdef';
const TEAM_ADMIN_KEY = 'cfg-admin-reads-teamadm-0003-0123456789abcdef';
const TOOL_SERVER = join(import.meta.dirname, '..', '..', 'helpers', 'stdio-tool-server.mjs');

async function get(url: string, path: string, token = ADMIN) {
  const res = await request(`${url}${path}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: res.statusCode, json: (await res.body.json()) as any };
}

/** The admin API's read-only views the console shows: the model catalogue with prices, and the tool servers. */
describe('GET /v1/admin/models and GET /v1/admin/mcp/servers', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startGateway({
      logging: { level: 'warn' },
      auth: {
        adminToken: ADMIN,
        apiKeys: [
          { key: VIEWER_KEY, user: 'vera@example.com', roles: ['viewer'] },
          { key: TEAM_ADMIN_KEY, user: 'tess@example.com', team: 'search', roles: ['team_admin'] },
        ],
      },
      secrets: { key: 'admin-reads-secret-key-0004-0123456789abcdef' },
      credentials: { 'openai-prod': { provider: 'openai', api_key: 'sk-admin-reads-held-0005-0123456789abcdef' } },
      models: {
        'gpt-4o-mini': { credential: 'openai-prod', model: 'gpt-4o-mini' },
        'house-model': { credential: 'openai-prod', model: 'no-such-priced-model-xyz' },
      },
      pricing: { unpriced: 'allow' },
      mcpServers: { tools: { command: process.execPath, args: [TOOL_SERVER], pin: 'warn' } },
    });
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('lists the catalogue with prices, flags unpriced models, and searches and pages on the server', async () => {
    const all = await get(gw.url, '/v1/admin/models');
    expect(all.status).toBe(200);
    const byId = new Map(all.json.data.map((m: any) => [m.id, m]));
    expect(byId.get('gpt-4o-mini')).toMatchObject({ object: 'admin.model', unpriced: false, source: 'file', price: expect.any(Object) });
    expect(byId.get('house-model')).toMatchObject({ unpriced: true, source: 'file' });
    expect((await get(gw.url, '/v1/admin/models?unpriced=true')).json.data.map((m: any) => m.id)).toEqual(['house-model']);
    expect((await get(gw.url, '/v1/admin/models?search=HOUSE')).json.data.map((m: any) => m.id)).toEqual(['house-model']);
    const first = await get(gw.url, '/v1/admin/models?limit=1');
    expect(first.json).toMatchObject({ data: [{ id: 'gpt-4o-mini' }], has_more: true });
    expect((await get(gw.url, '/v1/admin/models?limit=1&after=gpt-4o-mini')).json).toMatchObject({ data: [{ id: 'house-model' }], has_more: false });
    expect((await get(gw.url, '/v1/admin/models', VIEWER_KEY)).status).toBe(200);
    expect((await get(gw.url, '/v1/admin/models?unpriced=maybe')).status).toBe(400);
  });

  it("lists the tool servers with their status and tool count, and each server's tools with pinned digests (after a client's first list pins them)", async () => {
    let servers: any;
    for (let i = 0; i < 100; i++) {
      servers = await get(gw.url, '/v1/admin/mcp/servers');
      if (servers.json.data[0]?.status === 'ready' && servers.json.data[0].tools_total) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(servers.status).toBe(200);
    const [tools] = servers.json.data;
    expect(tools).toMatchObject({ object: 'admin.mcp_server', name: 'tools', source: 'file', transport: 'process', status: 'ready', pin: 'warn', tools_total: 5 });
    expect((await get(gw.url, '/v1/admin/mcp/servers/tools/tools')).json.data.map((t: any) => t.name)).toContain('echo');
    const client = await connectClient(`${gw.url}/mcp`);
    try {
      await client.listTools();
    } finally {
      await client.close();
    }
    const pinned = await get(gw.url, '/v1/admin/mcp/servers/tools/tools?search=echo');
    const echo = pinned.json.data.find((t: any) => t.name === 'echo');
    expect(echo.pinned_digest).toMatch(/^[0-9a-f]{16,}$|^sha256/);
    expect(echo.pending_digest).toBeNull();
    expect((await get(gw.url, '/v1/admin/mcp/servers', VIEWER_KEY)).status).toBe(200);
    expect((await get(gw.url, '/v1/admin/mcp/servers', TEAM_ADMIN_KEY)).status).toBe(403);
    expect((await get(gw.url, '/v1/admin/mcp/servers?search=nope')).json.data).toEqual([]);
    expect((await get(gw.url, '/v1/admin/mcp/servers/tools/tools', VIEWER_KEY)).status).toBe(200);
    expect((await get(gw.url, '/v1/admin/mcp/servers/tools/tools', TEAM_ADMIN_KEY)).status).toBe(403);
  });
});
