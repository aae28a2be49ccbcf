import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';
import { FakeUpstream } from '../../helpers/fake-upstream.js';
import { HttpToolServer } from '../../helpers/http-tool-server.js';
import { connectClient, rawPost, textOf } from '../../helpers/mcp.js';

const ADMIN = 'admin-token-0123456789abcdef0123456789';
const KEY = 'config-key-for-team-red-0001';
const EXPIRED_KEY = 'config-key-that-expired-0002';
const list = { jsonrpc: '2.0', id: 1, method: 'tools/list' };

describe('api-key auth: config keys and issued tokens in auth.header; gateway credentials on provider routes', () => {
  let remote: HttpToolServer;
  let upstream: FakeUpstream;
  let gw: TestGateway;

  beforeAll(async () => {
    remote = await new HttpToolServer().start();
    upstream = await new FakeUpstream().on('GET /v1/models', { json: { object: 'list', data: [{ id: 'gpt-4o-mini', object: 'model' }] } }).start();
    process.env.TEST_TEAM_RED_KEY = KEY;
    gw = await startGateway({
      auth: {
        enabled: true,
        type: 'api-key',
        header: 'X-Team-Key',
        adminToken: ADMIN,
        providerRoutes: true,
        apiKeys: [
          {
            key: '${TEST_TEAM_RED_KEY}',
            user: 'red-bot',
            email: 'red@example.com',
            team: 'red',
            roles: ['ops'],
            scopes: ['mcp:read', 'mcp:write'],
            permissions: { servers: ['remote'] },
          },
          { key: EXPIRED_KEY, user: 'old-bot', expiresAt: '2020-01-01T00:00:00Z' },
        ],
      },
      providers: { openai: { baseUrl: `${upstream.url}/v1` } },
      mcpServers: { remote: { url: remote.url } },
    });
  });
  afterAll(async () => {
    delete process.env.TEST_TEAM_RED_KEY;
    await gw?.close();
    await remote?.stop();
    await upstream?.stop();
  });

  it('a config key in the configured header works, with its identity forwarded', async () => {
    const client = await connectClient(`${gw.url}/mcp`, { 'X-Team-Key': KEY });
    const seen = JSON.parse(textOf(await client.callTool({ name: 'remote__whoami', arguments: {} })));
    expect(seen).toMatchObject({ email: 'red@example.com', name: 'red-bot', team: 'red', roles: 'ops' });
    expect(JSON.stringify(remote.requests.map((r) => r.headers))).not.toContain(KEY);
    await client.close();
  });

  it('401 for a missing key, a wrong key, a key in the wrong header, and an expired key', async () => {
    for (const headers of [{}, { 'x-team-key': 'wrong-key-value-123' }, { 'x-api-key': KEY }, { authorization: `Bearer ${KEY}` }, { 'x-team-key': EXPIRED_KEY }] as Record<
      string,
      string
    >[]) {
      const res = await rawPost(`${gw.url}/mcp`, list, headers);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${gw.url}/.well-known/oauth-protected-resource"`);
    }
    const expired = await rawPost(`${gw.url}/mcp`, list, { 'x-team-key': EXPIRED_KEY });
    expect(expired.json.error.message).toMatch(/expired/);
  });

  it('an issued token works as an api key too', async () => {
    const created = (await (
      await fetch(`${gw.url}/v1/auth/tokens`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ user: 'issued' }),
      })
    ).json()) as any;
    const res = await rawPost(`${gw.url}/mcp`, list, { 'x-team-key': created.token });
    expect(res.status).toBe(200);
  });

  it('never logs a key', async () => {
    expect(gw.logs.text).not.toContain(KEY);
    expect(gw.logs.text).not.toContain(EXPIRED_KEY);
  });

  describe('provider routes with auth.providerRoutes: true', () => {
    const models = (headers: Record<string, string>) =>
      fetch(`${gw.url}/v1/models`, { headers: { 'x-gateway-provider': 'openai', 'x-gateway-api-key': 'sk-test-provider-key-123', ...headers } });

    it('demand a gateway credential in x-gateway-token: missing is 401', async () => {
      const res = await models({});
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ error: { type: 'authentication_error', code: 'invalid_api_key' } });
    });

    it('a wrong one is 401', async () => {
      expect((await models({ 'x-gateway-token': 'not-a-valid-gateway-key' })).status).toBe(401);
    });

    it('a config key (or an issued token) passes, and the provider never sees it', async () => {
      const res = await models({ 'x-gateway-token': KEY });
      expect(res.status).toBe(200);
      const sent = upstream.received('GET /v1/models').at(-1)!;
      expect(JSON.stringify(sent.headers)).not.toContain(KEY);
      expect(gw.logs.records().some((r) => r.msg === 'request' && r.user === 'red-bot')).toBe(true);
    });
  });
});
