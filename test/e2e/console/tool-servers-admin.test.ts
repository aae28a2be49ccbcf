// GET /v1/admin/mcp/servers and GET /v1/admin/mcp/servers/{name}/tools as the console's Tool servers
// page reads them: each tool with its pinned digest and its calls (the usage ledger, across
// instances), the server's sessions, and its grants (the keys and tokens that may use it).
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient, eventually } from '../../helpers/mcp.js';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';

const ADMIN = 'admin-token-tool-servers-0001-0123456789abcdef';
const ECHO_ONLY = 'cfg-tool-servers-echo-only-0002-0123456789abcdef';
const OTHER_SERVER = 'cfg-tool-servers-other-0003-0123456789abcdef';
const READER = 'cfg-tool-servers-reader-0004-0123456789abcdef';
const TOOL_SERVER = join(import.meta.dirname, '..', '..', 'helpers', 'stdio-tool-server.mjs');

async function call(url: string, method: 'GET' | 'POST', path: string, body?: unknown) {
  const res = await request(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.body.text();
  return { status: res.statusCode, text, json: JSON.parse(text) };
}

describe('the tool servers of the admin API: calls, sessions and grants', { timeout: 60_000 }, () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startGateway({
      logging: { level: 'warn' },
      auth: {
        enabled: true,
        type: 'api-key',
        adminToken: ADMIN,
        apiKeys: [
          { key: ECHO_ONLY, user: 'eve@example.com', team: 'tools', permissions: { tools: ['tools__echo'] } },
          { key: OTHER_SERVER, user: 'otto@example.com', permissions: { servers: ['elsewhere'] } },
          { key: READER, user: 'rae@example.com', scopes: ['mcp:read'] },
        ],
      },
      mcpServers: { tools: { command: process.execPath, args: [TOOL_SERVER], pin: 'warn' } },
    });
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('counts each tool’s calls from the ledger, shows the sessions open through this instance, and lists who may use the server', async () => {
    const granted = await call(gw.url, 'POST', '/v1/auth/tokens', { user: 'tia@example.com', permissions: { servers: ['tools'] } });
    const elsewhere = await call(gw.url, 'POST', '/v1/auth/tokens', { user: 'uma@example.com', permissions: { servers: ['elsewhere'] } });
    const open = await call(gw.url, 'POST', '/v1/auth/tokens', { user: 'ned@example.com' });
    expect([granted.status, elsewhere.status, open.status]).toEqual([201, 201, 201]);

    const client = await connectClient(`${gw.url}/mcp/tools`, { 'x-api-key': ECHO_ONLY });
    try {
      await client.callTool({ name: 'echo', arguments: { text: 'one' } });
      await client.callTool({ name: 'echo', arguments: { text: 'two' } });
      const tools = await eventually(
        async () => {
          const list = await call(gw.url, 'GET', '/v1/admin/mcp/servers/tools/tools');
          return list.json.data?.find((t: any) => t.name === 'echo')?.calls?.calls === 2 ? list.json.data : undefined;
        },
        20_000,
        'the two calls in the ledger',
      );
      expect(tools.find((t: any) => t.name === 'echo').calls).toMatchObject({ calls: 2, errors: 0, last_at: expect.any(Number) });
      const other = tools.find((t: any) => t.name !== 'echo');
      expect(other.calls).toEqual({ calls: 0, errors: 0, last_at: null });
      const server = (await call(gw.url, 'GET', '/v1/admin/mcp/servers')).json.data.find((d: any) => d.name === 'tools');
      expect(server.calls).toBe(2);
      // The client's session is connected to the server through this instance.
      expect(server.sessions).toBeGreaterThanOrEqual(1);

      const grants = server.grants;
      const ids = grants.keys.map((k: any) => k.id);
      expect(grants.keys.find((k: any) => k.user === 'eve@example.com')).toMatchObject({ kind: 'config_key', team: 'tools', tools: ['tools__echo'], call: true });
      expect(grants.keys.find((k: any) => k.user === 'rae@example.com')).toMatchObject({ kind: 'config_key', tools: null, call: false });
      expect(grants.keys.find((k: any) => k.id === granted.json.id)).toMatchObject({ kind: 'token', user: 'tia@example.com', tools: null, call: true });
      expect(ids).not.toContain(elsewhere.json.id);
      expect(grants.keys.some((k: any) => k.user === 'otto@example.com')).toBe(false);
      // Tokens with no permissions of their own may use every server (their scopes permitting): counted, not listed.
      expect(ids).not.toContain(open.json.id);
      expect(grants.tokens_without_permissions).toBe(1);
      expect(JSON.stringify(server)).not.toContain(ECHO_ONLY);
    } finally {
      await client.close();
    }
    // A revoked token no longer holds a grant.
    expect((await request(`${gw.url}/v1/auth/tokens/${granted.json.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${ADMIN}` } })).statusCode).toBe(200);
    const after = (await call(gw.url, 'GET', '/v1/admin/mcp/servers')).json.data.find((d: any) => d.name === 'tools');
    expect(after.grants.keys.map((k: any) => k.id)).not.toContain(granted.json.id);
  });
});
