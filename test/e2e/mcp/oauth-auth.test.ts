import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';
import { HttpToolServer } from '../../helpers/http-tool-server.js';
import { FakeOidcIssuer } from '../../helpers/oidc-issuer.js';
import { connectClient, rawPost, textOf } from '../../helpers/mcp.js';

const list = { jsonrpc: '2.0', id: 1, method: 'tools/list' };

describe('oauth: JWT access tokens from an OIDC issuer', () => {
  let issuer: FakeOidcIssuer;
  let remote: HttpToolServer;
  let gw: TestGateway;
  let audience: string;
  const claims = { email: 'frank@example.com', name: 'Frank', groups: ['research', 'staff'], roles: ['reader', 'writer'], tenant: 'tenant-9' };

  beforeAll(async () => {
    issuer = await new FakeOidcIssuer().start();
    remote = await new HttpToolServer().start();
    gw = await startGateway({
      auth: { enabled: true, type: 'oauth', provider: 'custom', issuer: issuer.url, scopes: ['tools'], claims: { organization: 'tenant' } },
      mcpServers: { remote: { url: remote.url } },
    });
    // No auth.audience and no clientId: the audience is this gateway's /mcp URL.
    audience = `${gw.url}/mcp`;
  });
  afterAll(async () => {
    await gw?.close();
    await remote?.stop();
    await issuer?.stop();
  });

  it('reads the discovery document at start-up and reports it in /ready', async () => {
    expect(issuer.discoveryHits).toBeGreaterThanOrEqual(1);
    const ready = (await (await fetch(`${gw.url}/ready`)).json()) as any;
    expect(ready.checks.oauth).toBe(true);
  });

  it('a good token works; identity comes from its claims (team from groups, organization renamed)', async () => {
    const token = await issuer.mint({ audience, scope: 'openid tools mcp:read mcp:write', claims });
    const client = await connectClient(`${gw.url}/mcp`, { Authorization: `Bearer ${token}` });
    const seen = JSON.parse(textOf(await client.callTool({ name: 'remote__whoami', arguments: {} })));
    expect(seen).toMatchObject({ email: 'frank@example.com', name: 'Frank', team: 'research', roles: 'reader,writer', organization: 'tenant-9' });
    expect(JSON.stringify(remote.requests.map((r) => r.headers))).not.toContain(token);
    await client.close();
  });

  it('401 with the challenge for expired, wrong audience, wrong issuer, unknown key, and garbage', async () => {
    const bad = [
      ['expired', await issuer.mint({ audience, scope: 'tools', expiresIn: -120 }), /expired/],
      ['wrong audience', await issuer.mint({ audience: 'https://other.example/mcp', scope: 'tools' }), /another audience/],
      ['wrong issuer', await issuer.mint({ audience, scope: 'tools', issuer: 'https://evil.example' }), /another issuer/],
      ['unknown key', await issuer.mint({ audience, scope: 'tools', unknownKey: true }), /not signed by a key of the issuer/],
      ['garbage', 'not.a.jwt', /not a valid signed JWT/],
    ] as const;
    for (const [what, token, message] of bad) {
      const res = await rawPost(`${gw.url}/mcp`, list, { authorization: `Bearer ${token}` });
      expect(res.status, what).toBe(401);
      expect(res.headers.get('www-authenticate'), what).toBe(`Bearer resource_metadata="${gw.url}/.well-known/oauth-protected-resource"`);
      expect(res.json.error.message, what).toMatch(message);
    }
    const none = await rawPost(`${gw.url}/mcp`, list);
    expect(none.status).toBe(401);
  });

  it('403 insufficient_scope when a required scope (auth.scopes) is missing', async () => {
    const token = await issuer.mint({ audience, scope: 'openid mcp:read' });
    const res = await rawPost(`${gw.url}/mcp`, list, { authorization: `Bearer ${token}` });
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
    expect(res.headers.get('www-authenticate')).toContain('scope="tools"');
    expect(res.json).toMatchObject({ error: { type: 'permission_error', code: 'insufficient_permissions' } });
  });

  it('mcp:* scopes in the token narrow it: mcp:read lists but cannot call', async () => {
    const token = await issuer.mint({ audience, scope: 'tools mcp:read' });
    const client = await connectClient(`${gw.url}/mcp`, { Authorization: `Bearer ${token}` });
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    await expect(client.callTool({ name: 'remote__echo', arguments: { text: 'x' } })).rejects.toThrow(/mcp:write/);
    await client.close();
  });

  it('accepts the path-specific audience of /mcp/<server>', async () => {
    const token = await issuer.mint({ audience: `${gw.url}/mcp/remote`, scope: 'tools' });
    const res = await rawPost(`${gw.url}/mcp/remote`, list, { authorization: `Bearer ${token}` });
    expect(res.status).toBe(200);
  });

  it('names the issuer in the protected-resource metadata', async () => {
    const doc = (await (await fetch(`${gw.url}/.well-known/oauth-protected-resource`)).json()) as any;
    expect(doc).toMatchObject({ resource: `${gw.url}/mcp`, authorization_servers: [issuer.url], scopes_supported: expect.arrayContaining(['mcp:read', 'mcp:write', 'tools']) });
  });
});

describe('oauth with auth.audience set', () => {
  let issuer: FakeOidcIssuer;
  let gw: TestGateway;

  beforeAll(async () => {
    issuer = await new FakeOidcIssuer().start();
    gw = await startGateway({ auth: { enabled: true, type: 'oauth', issuer: issuer.url, clientId: 'gateway-client', audience: ['api://gateway', 'api://tools'] } });
  });
  afterAll(async () => {
    await gw?.close();
    await issuer?.stop();
  });

  it('accepts any listed audience and refuses the client id and the /mcp URL', async () => {
    for (const aud of ['api://gateway', 'api://tools']) {
      expect((await rawPost(`${gw.url}/mcp`, list, { authorization: `Bearer ${await issuer.mint({ audience: aud })}` })).status).toBe(200);
    }
    for (const aud of ['gateway-client', `${gw.url}/mcp`]) {
      expect((await rawPost(`${gw.url}/mcp`, list, { authorization: `Bearer ${await issuer.mint({ audience: aud })}` })).status).toBe(401);
    }
  });
});

describe('oauth with a client id and no auth.audience', () => {
  let issuer: FakeOidcIssuer;
  let gw: TestGateway;

  beforeAll(async () => {
    issuer = await new FakeOidcIssuer().start();
    gw = await startGateway({ auth: { enabled: true, type: 'oauth', issuer: issuer.url, clientId: 'gateway-client' } });
  });
  afterAll(async () => {
    await gw?.close();
    await issuer?.stop();
  });

  it("accepts a token for the client id and one for the gateway's /mcp URL, and no other audience", async () => {
    for (const aud of ['gateway-client', `${gw.url}/mcp`]) {
      expect((await rawPost(`${gw.url}/mcp`, list, { authorization: `Bearer ${await issuer.mint({ audience: aud })}` })).status, aud).toBe(200);
    }
    for (const aud of ['other-client', 'https://elsewhere.example/mcp']) {
      const res = await rawPost(`${gw.url}/mcp`, list, { authorization: `Bearer ${await issuer.mint({ audience: aud })}` });
      expect(res.status, aud).toBe(401);
      expect(res.json.error.message).toMatch(/another audience/);
    }
  });
});

describe('oauth with an unreachable issuer', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startGateway({ auth: { enabled: true, type: 'oauth', issuer: 'http://127.0.0.1:9', clientId: 'c' } });
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('is not ready, and answers 503 rather than letting anyone in', async () => {
    expect((await fetch(`${gw.url}/ready`)).status).toBe(503);
    const res = await rawPost(`${gw.url}/mcp`, list, { authorization: 'Bearer a.b.c' });
    expect(res.status).toBe(503);
    expect(res.json).toMatchObject({ error: { type: 'service_unavailable' } });
  });
});
