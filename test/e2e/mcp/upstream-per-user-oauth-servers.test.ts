import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';
import { HttpToolServer } from '../../helpers/http-tool-server.js';
import { consentAndConnect, FakeToolOAuth } from '../../helpers/fake-tool-oauth.js';
import { connectClient, rawPost, textOf } from '../../helpers/mcp.js';

const ADMIN = 'admin-token-of-the-discovery-tests-0123456789';
const CLIENT = { id: 'gateway-at-found', secret: 'client-secret-of-the-gateway-at-found-0123' };
const RESOURCE = 'https://tools.example/mcp';

describe('per_user_oauth without configured endpoints: discovered from RFC 9728 and RFC 8414 metadata', () => {
  let as: FakeToolOAuth;
  let found: HttpToolServer;
  let insecure: HttpToolServer;
  let gw: TestGateway;
  let key = '';

  const call = (name: string, id: number) =>
    rawPost(`${gw.url}/mcp`, { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: { text: `call ${id}` } } }, { authorization: `Bearer ${key}` });

  beforeAll(async () => {
    as = await new FakeToolOAuth(CLIENT).start();
    found = await new HttpToolServer({ protectedResource: () => ({ resource: RESOURCE, authorization_servers: [as.url] }) }).start();
    // Names an authorization server on plain http off loopback: never used.
    insecure = await new HttpToolServer({ protectedResource: () => ({ resource: RESOURCE, authorization_servers: ['http://as.example'] }) }).start();
    const auth = { upstream: 'per_user_oauth', clientId: CLIENT.id, clientSecret: CLIENT.secret };
    gw = await startGateway({
      auth: { enabled: true, type: 'bearer', adminToken: ADMIN },
      secrets: { key: 'b'.repeat(64) },
      mcpServers: { found: { url: found.url, auth }, insecure: { url: insecure.url, auth } },
    });
    const res = await fetch(`${gw.url}/v1/auth/tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ user: 'pat@example.com' }),
    });
    key = ((await res.json()) as { token: string }).token;
  });
  afterAll(async () => {
    await gw?.close();
    await found?.stop();
    await insecure?.stop();
    await as?.stop();
  });

  it('the connect link goes to the discovered authorization endpoint with the metadata’s resource; the code is traded at the discovered token endpoint', async () => {
    const missing = await call('found__echo', 1);
    const link = new URL(missing.json.error.data.connect_url);
    expect(`${link.origin}${link.pathname}`).toBe(as.authorizationEndpoint);
    expect(link.searchParams.get('resource')).toBe(RESOURCE);
    const atAs = await fetch(link, { redirect: 'manual', headers: { cookie: 'upstream-user=pat' } });
    const back = await consentAndConnect(atAs.headers.get('location')!);
    expect(back.status).toBe(200);
    expect((await call('found__echo', 2)).json.result.content[0].text).toBe('echo: call 2');
    expect(found.calls.at(-1)!.headers.authorization).toBe(`Bearer ${as.issued.get('pat')![0]}`);
  });

  it('an authorization server that is not https (off loopback) is not used: the call fails as unavailable, no link given', async () => {
    const answer = await call('insecure__echo', 3);
    expect(answer.json.error.code).toBe(-32004);
    expect(answer.json.error.message).toMatch(/could not be discovered \(no https authorization server named\)/);
    expect(answer.json.error.data).toBeUndefined();
    const link = await fetch(`${gw.url}/v1/mcp/connections/insecure`, { method: 'POST', headers: { authorization: `Bearer ${key}` } });
    expect(link.status).toBe(503);
    expect(((await link.json()) as { error: { code: string } }).error.code).toBe('service_unavailable');
  });

  it('an authorization server whose metadata does not offer PKCE S256 is not used', async () => {
    as.pkceMethods = ['plain'];
    try {
      // The endpoints of "found" were discovered once and are kept; a server seen anew would be refused.
      const other = await new HttpToolServer({ protectedResource: () => ({ authorization_servers: [as.url] }) }).start();
      const { discoverEndpoints } = await import('../../../src/features/mcp/connections/discovery.js');
      await expect(discoverEndpoints('other', other.url)).rejects.toThrow(/PKCE S256 is not supported/);
      as.pkceMethods = ['S256'];
      await expect(discoverEndpoints('other', other.url)).resolves.toEqual({ authorizationEndpoint: as.authorizationEndpoint, tokenEndpoint: as.tokenEndpoint });
      await other.stop();
    } finally {
      as.pkceMethods = ['S256'];
    }
  });
});

describe('per_user_oauth on a tool server that refuses every request without a user token', () => {
  /** Access tokens the tool server no longer takes. */
  const revoked = new Set<string>();
  let as: FakeToolOAuth;
  let strict: HttpToolServer;
  let gw: TestGateway;
  let key = '';

  beforeAll(async () => {
    as = await new FakeToolOAuth(CLIENT).start();
    strict = await new HttpToolServer({ requireBearer: (authorization) => /^Bearer at-/.test(authorization) && !revoked.has(authorization.slice(7)) }).start();
    gw = await startGateway({
      auth: { enabled: true, type: 'bearer', adminToken: ADMIN },
      secrets: { key: 'c'.repeat(64) },
      mcpServers: {
        strict: {
          url: strict.url,
          auth: { upstream: 'per_user_oauth', authorizationEndpoint: as.authorizationEndpoint, tokenEndpoint: as.tokenEndpoint, clientId: CLIENT.id, clientSecret: CLIENT.secret },
        },
      },
    });
    const res = await fetch(`${gw.url}/v1/auth/tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ user: 'sam@example.com' }),
    });
    key = ((await res.json()) as { token: string }).token;
  });
  afterAll(async () => {
    await gw?.close();
    await strict?.stop();
    await as?.stop();
  });

  it('the gateway stays ready; a connected user’s own session on /mcp/<server> lists and calls with their token', async () => {
    expect((await fetch(`${gw.url}/ready`)).status).toBe(200);
    const link = await fetch(`${gw.url}/v1/mcp/connections/strict`, { method: 'POST', headers: { authorization: `Bearer ${key}` } });
    const { connect_url } = (await link.json()) as { connect_url: string };
    const atAs = await fetch(connect_url, { redirect: 'manual', headers: { cookie: 'upstream-user=sam' } });
    expect((await consentAndConnect(atAs.headers.get('location')!)).status).toBe(200);
    const client = await connectClient(`${gw.url}/mcp/strict`, { authorization: `Bearer ${key}` });
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('echo');
      expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'own' } }))).toBe('echo: own');
    } finally {
      await client.close();
    }
    expect(strict.calls.at(-1)!.headers.authorization).toBe(`Bearer ${as.issued.get('sam')![0]}`);
  });

  it('a token the server refuses (401) is refreshed before the next call', async () => {
    const [first] = as.issued.get('sam')!;
    revoked.add(first!);
    const refused = await rawPost(
      `${gw.url}/mcp/strict`,
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } },
      {
        authorization: `Bearer ${key}`,
      },
    );
    expect(refused.status).toBe(502);
    expect(refused.json.error.message).toMatch(/refused your connection's token: retry/);
    const client = await connectClient(`${gw.url}/mcp/strict`, { authorization: `Bearer ${key}` });
    try {
      expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'again' } }))).toBe('echo: again');
    } finally {
      await client.close();
    }
    const second = as.issued.get('sam')![1]!;
    expect(as.seen.at(-1)).toMatchObject({ grant: 'refresh_token', user: 'sam' });
    expect(strict.calls.at(-1)!.headers.authorization).toBe(`Bearer ${second}`);
  });
  it('the combined /mcp serves each connected user on a session of their own: their tools, their token, never another user’s', async () => {
    const res = await fetch(`${gw.url}/v1/auth/tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ user: 'kim@example.com' }),
    });
    const kimKey = ((await res.json()) as { token: string }).token;
    // Kim has not connected: the server is left out of her list, and its tools answer the not-connected error.
    const kim = await connectClient(`${gw.url}/mcp`, { authorization: `Bearer ${kimKey}` });
    const sam = await connectClient(`${gw.url}/mcp`, { authorization: `Bearer ${key}` });
    try {
      expect((await kim.listTools()).tools.map((t) => t.name)).not.toContain('strict__echo');
      await expect(kim.callTool({ name: 'strict__echo', arguments: { text: 'x' } })).rejects.toMatchObject({ code: -32007 });
      const before = strict.calls.length;
      // Sam has: the server's tools are on his list, and his calls carry his own token.
      expect((await sam.listTools()).tools.map((t) => t.name)).toContain('strict__echo');
      expect(textOf(await sam.callTool({ name: 'strict__echo', arguments: { text: 'sam' } }))).toBe('echo: sam');
      const samToken = `Bearer ${as.issued.get('sam')!.at(-1)}`;
      expect(strict.calls.slice(before).every((c) => c.headers.authorization === samToken)).toBe(true);

      const link = await fetch(`${gw.url}/v1/mcp/connections/strict`, { method: 'POST', headers: { authorization: `Bearer ${kimKey}` } });
      const { connect_url } = (await link.json()) as { connect_url: string };
      const atAs = await fetch(connect_url, { redirect: 'manual', headers: { cookie: 'upstream-user=kim' } });
      expect((await consentAndConnect(atAs.headers.get('location')!)).status).toBe(200);
      const kimToken = `Bearer ${as.issued.get('kim')![0]}`;
      const from = strict.calls.length;
      const [kimAnswer, samAnswer] = await Promise.all([
        kim.callTool({ name: 'strict__echo', arguments: { text: 'kim' } }),
        sam.callTool({ name: 'strict__echo', arguments: { text: 'sam again' } }),
      ]);
      expect(textOf(kimAnswer)).toBe('echo: kim');
      expect(textOf(samAnswer)).toBe('echo: sam again');
      const calls = strict.calls.slice(from).filter((c) => c.tool === 'echo');
      expect(calls.map((c) => [c.args.text, c.headers.authorization]).sort()).toEqual(
        [
          ['kim', kimToken],
          ['sam again', samToken],
        ].sort(),
      );
    } finally {
      await kim.close();
      await sam.close();
    }
  });
});

describe('per_user_oauth when the gateway does not authenticate callers', () => {
  let tools: HttpToolServer;
  let gw: TestGateway;

  beforeAll(async () => {
    tools = await new HttpToolServer().start();
    gw = await startGateway({
      auth: { enabled: false },
      secrets: { key: 'd'.repeat(64) },
      mcpServers: {
        tools: {
          url: tools.url,
          auth: { upstream: 'per_user_oauth', authorizationEndpoint: 'http://127.0.0.1:9/authorize', tokenEndpoint: 'http://127.0.0.1:9/token', clientId: 'c' },
        },
      },
    });
  });
  afterAll(async () => {
    await gw?.close();
    await tools?.stop();
  });

  it('refuses: every anonymous caller would share one account (no link is given)', async () => {
    const answer = await rawPost(`${gw.url}/mcp`, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'tools__echo', arguments: { text: 'x' } } });
    expect(answer.json.error.code).toBe(-32003);
    expect(answer.json.error.message).toMatch(/needs each caller's own connection/);
    expect(answer.json.error.data).toBeUndefined();
    const link = await fetch(`${gw.url}/v1/mcp/connections/tools`, { method: 'POST' });
    expect(link.status).toBe(403);
    expect(((await link.json()) as { error: { code: string } }).error.code).toBe('insufficient_permissions');
    expect(tools.calls).toEqual([]);
  });
});
