import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';
import { HttpToolServer } from '../../helpers/http-tool-server.js';
import { connectClient, rawPost, stdioToolServer, textOf } from '../../helpers/mcp.js';

const ADMIN = 'admin-token-0123456789abcdef0123456789';
const SIGNING = 'identity-signing-secret-0123';

describe('bearer tokens: token operations and /mcp behind them', () => {
  let remote: HttpToolServer;
  let gw: TestGateway;
  const admin = { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' };

  async function issue(body: Record<string, unknown>): Promise<any> {
    const res = await fetch(`${gw.url}/v1/auth/tokens`, { method: 'POST', headers: admin, body: JSON.stringify(body) });
    expect(res.status).toBe(201);
    return res.json();
  }

  beforeAll(async () => {
    remote = await new HttpToolServer().start();
    gw = await startGateway({
      auth: { enabled: true, type: 'bearer', adminToken: ADMIN, tokenExpiration: '7d' },
      identityForwarding: { signingSecret: SIGNING, organizationId: 'org-default' },
      server: { allowedOrigins: ['https://app.example.com'] },
      mcpServers: { remote: { url: remote.url, headers: { Authorization: 'Bearer remote-server-credential' } }, local: stdioToolServer() },
    });
  });
  afterAll(async () => {
    await gw?.close();
    await remote?.stop();
  });

  describe('token operations', () => {
    it('creates a token: 201 with the contract fields, the value once, expiry from expiresIn', async () => {
      const before = Math.floor(Date.now() / 1000);
      const body = await issue({
        user: 'alice@example.com',
        team: 'platform',
        scopes: ['mcp:read', 'mcp:write'],
        permissions: { servers: ['remote'] },
        expiresIn: '2d',
        name: 'Alice',
        roles: ['admin', 'dev'],
        organization: 'acme',
      });
      expect(body).toMatchObject({
        object: 'auth.token',
        user: 'alice@example.com',
        team: 'platform',
        scopes: ['mcp:read', 'mcp:write'],
        permissions: { servers: ['remote'] },
        revoked_at: null,
        name: 'Alice',
        roles: ['admin', 'dev'],
        organization: 'acme',
      });
      expect(body.id).toMatch(/^tok_/);
      expect(body.token).toMatch(/^gwt_[A-Za-z0-9_-]{43}$/);
      expect(body.created_at).toBeGreaterThanOrEqual(before);
      expect(body.expires_at - body.created_at).toBe(2 * 86400);
      for (const key of ['id', 'object', 'token', 'user', 'team', 'scopes', 'permissions', 'created_at', 'expires_at', 'revoked_at']) expect(body).toHaveProperty(key);
    });

    it('defaults the expiry to auth.tokenExpiration and the scopes to read and write', async () => {
      const body = await issue({ user: 'bob' });
      expect(body.expires_at - body.created_at).toBe(7 * 86400);
      expect(body.scopes).toEqual(['mcp:read', 'mcp:write']);
      expect(body.team).toBeNull();
      expect(body).not.toHaveProperty('email');
    });

    it('validates the body: contract error with param', async () => {
      const cases: Array<[unknown, string]> = [
        [{}, 'user'],
        [{ user: 'x', expiresIn: '10 days' }, 'expiresIn'],
        [{ user: 'x', scopes: ['mcp:admin'] }, 'scopes[0]'],
        [{ user: 'x', permissions: { servers: 'remote' } }, 'permissions.servers'],
        [{ user: 'x', extra: 1 }, 'extra'],
      ];
      for (const [body, param] of cases) {
        const res = await fetch(`${gw.url}/v1/auth/tokens`, { method: 'POST', headers: admin, body: JSON.stringify(body) });
        expect(res.status).toBe(400);
        const json = (await res.json()) as any;
        expect(json).toMatchObject({ status: 'failure', error: { type: 'invalid_request_error', code: 'missing_required_parameter', param } });
      }
      const bad = await fetch(`${gw.url}/v1/auth/tokens`, { method: 'POST', headers: admin, body: '{"user":' });
      expect(bad.status).toBe(400);
      expect(((await bad.json()) as any).error.param).toBe('body');
    });

    it('needs the admin token: missing or wrong is 401 with the challenge', async () => {
      for (const headers of [{}, { authorization: 'Bearer not-the-admin-token-xyz' }, { authorization: `Basic ${ADMIN}` }] as Record<string, string>[]) {
        for (const [method, path] of [
          ['POST', '/v1/auth/tokens'],
          ['GET', '/v1/auth/tokens'],
          ['DELETE', '/v1/auth/tokens/tok_x'],
          ['POST', '/v1/auth/tokens/tok_x/rotate'],
        ] as const) {
          const res = await fetch(`${gw.url}${path}`, {
            method,
            headers: { 'content-type': 'application/json', ...headers },
            body: method === 'POST' ? '{"user":"x"}' : undefined,
          });
          expect(res.status, `${method} ${path}`).toBe(401);
          expect(res.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${gw.url}/.well-known/oauth-protected-resource"`);
          expect(await res.json()).toMatchObject({ error: { type: 'authentication_error', code: 'invalid_api_key' } });
        }
      }
    });

    it('a gateway token is not an admin token: a valid key without an admin role is 403', async () => {
      const { token } = await issue({ user: 'mallory' });
      const res = await fetch(`${gw.url}/v1/auth/tokens`, { headers: { authorization: `Bearer ${token}` } });
      expect(res.status).toBe(403);
      expect(((await res.json()) as any).error.type).toBe('permission_error');
    });

    it('lists every token without values, revoked ones included', async () => {
      const a = await issue({ user: 'list-a' });
      const b = await issue({ user: 'list-b' });
      await fetch(`${gw.url}/v1/auth/tokens/${b.id}`, { method: 'DELETE', headers: admin });
      const res = await fetch(`${gw.url}/v1/auth/tokens`, { headers: admin });
      expect(res.status).toBe(200);
      const body = (await res.json()) as any;
      expect(body.object).toBe('list');
      expect(body.has_more).toBe(false);
      const byId = new Map(body.data.map((t: any) => [t.id, t]));
      expect(byId.get(a.id)).toMatchObject({ user: 'list-a', revoked_at: null });
      expect((byId.get(b.id) as any).revoked_at).toEqual(expect.any(Number));
      expect(JSON.stringify(body)).not.toContain('gwt_');
      expect(body.data.every((t: any) => !('token' in t))).toBe(true);
    });

    it('revokes: 200 with revoked_at; the token fails at once; unknown id 404', async () => {
      const t = await issue({ user: 'revoke-me' });
      const ok = await rawPost(`${gw.url}/mcp`, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { authorization: `Bearer ${t.token}` });
      expect(ok.status).toBe(200);
      const res = await fetch(`${gw.url}/v1/auth/tokens/${t.id}`, { method: 'DELETE', headers: admin });
      expect(res.status).toBe(200);
      const body = (await res.json()) as any;
      expect(body).toMatchObject({ id: t.id, object: 'auth.token', user: 'revoke-me' });
      expect(body.revoked_at).toEqual(expect.any(Number));
      expect(body).not.toHaveProperty('token');
      const after = await rawPost(`${gw.url}/mcp`, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { authorization: `Bearer ${t.token}` });
      expect(after.status).toBe(401);
      expect(after.json.error.message).toMatch(/revoked/);
      const missing = await fetch(`${gw.url}/v1/auth/tokens/tok_doesnotexist`, { method: 'DELETE', headers: admin });
      expect(missing.status).toBe(404);
      expect(await missing.json()).toMatchObject({ error: { code: 'not_found' } });
    });

    it('rotates: a new value, the old one ends; revoked tokens cannot be rotated', async () => {
      const t = await issue({ user: 'rotate-me', team: 'ops' });
      const res = await fetch(`${gw.url}/v1/auth/tokens/${t.id}/rotate`, { method: 'POST', headers: admin });
      expect(res.status).toBe(200);
      const rotated = (await res.json()) as any;
      expect(rotated).toMatchObject({ id: t.id, object: 'auth.token', user: 'rotate-me', team: 'ops', revoked_at: null });
      expect(rotated.token).toMatch(/^gwt_/);
      expect(rotated.token).not.toBe(t.token);
      const oldValue = await rawPost(`${gw.url}/mcp`, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { authorization: `Bearer ${t.token}` });
      expect(oldValue.status).toBe(401);
      const newValue = await rawPost(`${gw.url}/mcp`, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { authorization: `Bearer ${rotated.token}` });
      expect(newValue.status).toBe(200);
      await fetch(`${gw.url}/v1/auth/tokens/${t.id}`, { method: 'DELETE', headers: admin });
      const again = await fetch(`${gw.url}/v1/auth/tokens/${t.id}/rotate`, { method: 'POST', headers: admin });
      expect(again.status).toBe(422);
      const unknown = await fetch(`${gw.url}/v1/auth/tokens/tok_nope/rotate`, { method: 'POST', headers: admin });
      expect(unknown.status).toBe(404);
    });

    it('an expired token fails with 401', async () => {
      const t = await issue({ user: 'short-lived', expiresIn: '1s' });
      await new Promise((r) => setTimeout(r, 1100));
      const res = await rawPost(`${gw.url}/mcp`, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { authorization: `Bearer ${t.token}` });
      expect(res.status).toBe(401);
      expect(res.json.error.message).toMatch(/expired/);
    });

    it('never writes a token value or the admin token in a log line', async () => {
      const t = await issue({ user: 'log-check' });
      await rawPost(`${gw.url}/mcp`, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { authorization: `Bearer ${t.token}` });
      expect(gw.logs.text).not.toContain(t.token);
      expect(gw.logs.text).not.toContain(ADMIN);
    });
  });

  describe('/mcp with bearer auth', () => {
    it('401 without a credential, with a bad one, and with a non-bearer scheme — each with the challenge', async () => {
      for (const headers of [{}, { authorization: 'Bearer gwt_not-a-real-token' }, { authorization: 'Bearer whatever' }, { authorization: 'Basic YWxpY2U6c2VjcmV0' }] as Record<
        string,
        string
      >[]) {
        const res = await rawPost(
          `${gw.url}/mcp`,
          { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } },
          headers,
        );
        expect(res.status).toBe(401);
        expect(res.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${gw.url}/.well-known/oauth-protected-resource"`);
        expect(res.json).toMatchObject({ status: 'failure', error: { type: 'authentication_error', code: 'invalid_api_key' } });
      }
      const get = await fetch(`${gw.url}/mcp`, { headers: { accept: 'text/event-stream' } });
      expect(get.status).toBe(401);
    });

    it('serves the RFC 9728 metadata document', async () => {
      for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp']) {
        const res = await fetch(`${gw.url}${path}`);
        expect(res.status).toBe(200);
        expect(await res.json()).toMatchObject({
          resource: `${gw.url}/mcp`,
          bearer_methods_supported: ['header'],
          scopes_supported: expect.arrayContaining(['mcp:read', 'mcp:write']),
        });
      }
      const one = (await (await fetch(`${gw.url}/.well-known/oauth-protected-resource/mcp/remote`)).json()) as any;
      expect(one.resource).toBe(`${gw.url}/mcp/remote`);
    });

    it('an SDK client connects with the token in headers and calls tools', async () => {
      const { token } = await issue({ user: 'sdk-user' });
      const client = await connectClient(`${gw.url}/mcp`, { Authorization: `Bearer ${token}` });
      expect(textOf(await client.callTool({ name: 'remote__echo', arguments: { text: 'via sdk' } }))).toBe('echo: via sdk');
      await client.close();
    });

    it('mcp:read lists and reads but cannot call (JSON-RPC error, audited)', async () => {
      const { token } = await issue({ user: 'reader', scopes: ['mcp:read'] });
      const client = await connectClient(`${gw.url}/mcp`, { Authorization: `Bearer ${token}` });
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('remote__echo');
      expect((await client.readResource({ uri: 'mcpgw://remote/note://greeting' })).contents[0]).toMatchObject({ text: 'hello from the http tool server' });
      await expect(client.callTool({ name: 'remote__echo', arguments: { text: 'x' } })).rejects.toThrow(/Forbidden: the credential lacks the mcp:write scope/);
      expect(gw.logs.records().some((r) => r.audit === 'mcp' && r.who === 'reader' && r.allowed === false && r.name === 'echo')).toBe(true);
      await client.close();
    });

    it('a token with no scope at all gets 403 on the HTTP request', async () => {
      const { token } = await issue({ user: 'nobody', scopes: [] });
      const res = await rawPost(`${gw.url}/mcp`, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { authorization: `Bearer ${token}` });
      expect(res.status).toBe(403);
      expect(res.json).toMatchObject({ error: { type: 'permission_error', code: 'insufficient_permissions' } });
    });

    it('permissions.servers narrows lists and calls; /mcp/<server> it may not use is 403', async () => {
      const { token } = await issue({ user: 'remote-only', permissions: { servers: ['remote'] } });
      const client = await connectClient(`${gw.url}/mcp`, { Authorization: `Bearer ${token}` });
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names.length).toBeGreaterThan(0);
      expect(names.every((n) => n.startsWith('remote__'))).toBe(true);
      await expect(client.callTool({ name: 'local__echo', arguments: { text: 'x' } })).rejects.toThrow(/Forbidden: the credential may not use tool server local/);
      await client.close();
      const res = await rawPost(`${gw.url}/mcp/local`, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { authorization: `Bearer ${token}` });
      expect(res.status).toBe(403);
      expect(res.json).toMatchObject({ error: { code: 'insufficient_permissions' } });
      expect(gw.logs.records().some((r) => r.audit === 'mcp' && r.who === 'remote-only' && r.server === 'local' && r.allowed === false)).toBe(true);
    });

    it('permissions.tools (names and server__* patterns) narrows lists and calls with one rule', async () => {
      const { token } = await issue({ user: 'tool-picker', permissions: { tools: ['remote__echo', 'local__*'] } });
      const client = await connectClient(`${gw.url}/mcp`, { Authorization: `Bearer ${token}` });
      const names = (await client.listTools()).tools.map((t) => t.name).sort();
      expect(names).toContain('remote__echo');
      expect(names).not.toContain('remote__add');
      expect(names.filter((n) => n.startsWith('local__')).length).toBeGreaterThan(0);
      expect(textOf(await client.callTool({ name: 'remote__echo', arguments: { text: 'ok' } }))).toBe('echo: ok');
      await expect(client.callTool({ name: 'remote__add', arguments: { a: 1, b: 2 } })).rejects.toThrow(/Forbidden: the credential may not use tool remote__add/);
      await client.close();
    });

    it('forwards the identity of a token to a remote server, signed, and never the caller credential', async () => {
      const { token } = await issue({ user: 'carol@example.com', team: 'data', roles: ['analyst', 'viewer'], organization: 'acme' });
      const client = await connectClient(`${gw.url}/mcp`, {
        Authorization: `Bearer ${token}`,
        'X-User-Email': 'ceo@example.com',
        'X-User-Roles': 'admin',
        'X-Gateway-Identity-Signature': 't=1,v1=00',
      });
      const seen = JSON.parse(textOf(await client.callTool({ name: 'remote__whoami', arguments: {} })));
      expect(seen).toMatchObject({ email: 'carol@example.com', name: 'carol@example.com', team: 'data', roles: 'analyst,viewer', organization: 'acme' });
      const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(seen.signature)!;
      const expected = createHmac('sha256', SIGNING).update(`${t}.carol@example.com.carol@example.com.data.analyst,viewer.acme`).digest('hex');
      expect(v1).toBe(expected);
      const call = remote.calls.filter((c) => c.tool === 'whoami').at(-1)!;
      expect(call.headers.authorization).toBe('Bearer remote-server-credential');
      expect(JSON.stringify(remote.requests.map((r) => r.headers))).not.toContain(token);
      await client.close();
    });

    it('falls back to identityForwarding.organizationId, uses name over user, sends no empty header', async () => {
      const { token } = await issue({ user: 'dave', name: 'Dave D.' });
      const client = await connectClient(`${gw.url}/mcp`, { Authorization: `Bearer ${token}` });
      const seen = JSON.parse(textOf(await client.callTool({ name: 'remote__whoami', arguments: {} })));
      expect(seen).toMatchObject({ email: null, name: 'Dave D.', team: null, roles: null, organization: 'org-default' });
      await client.close();
    });

    it('gives a process server the same values in params._meta["io.gateway/identity"], and drops a forged one', async () => {
      const { token } = await issue({ user: 'erin@example.com', team: 'qa', roles: ['tester'] });
      const res = await rawPost(
        `${gw.url}/mcp`,
        {
          jsonrpc: '2.0',
          id: 3,
          method: 'tools/call',
          params: { name: 'local__whoami', arguments: {}, _meta: { 'io.gateway/identity': { email: 'forged@example.com' }, 'app.example/trace': 'abc' } },
        },
        { authorization: `Bearer ${token}` },
      );
      expect(res.status).toBe(200);
      const seen = JSON.parse(res.json.result.content[0].text);
      expect(seen.identity).toEqual({ email: 'erin@example.com', name: 'erin@example.com', team: 'qa', roles: 'tester', organization: 'org-default' });
      expect(seen.meta['app.example/trace']).toBe('abc');
      expect(JSON.stringify(seen)).not.toContain(token);
    });

    it('sessions belong to the caller that opened them: another token gets 404', async () => {
      const a = await issue({ user: 'owner' });
      const b = await issue({ user: 'intruder' });
      const client = await connectClient(`${gw.url}/mcp`, { Authorization: `Bearer ${a.token}` });
      const sid = (client.transport as unknown as { sessionId: string }).sessionId;
      const stolen = await rawPost(
        `${gw.url}/mcp`,
        { jsonrpc: '2.0', id: 9, method: 'tools/list' },
        { authorization: `Bearer ${b.token}`, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' },
      );
      expect(stolen.status).toBe(404);
      const noAuth = await rawPost(`${gw.url}/mcp`, { jsonrpc: '2.0', id: 9, method: 'tools/list' }, { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' });
      expect(noAuth.status).toBe(401);
      // The owner still works, and is authenticated again on every request.
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
      await fetch(`${gw.url}/v1/auth/tokens/${a.id}`, { method: 'DELETE', headers: admin });
      await expect(client.listTools()).rejects.toThrow(/The token has been revoked/);
      await client.close().catch(() => undefined);
    });

    it('a session opened on /mcp is not usable on /mcp/<server>', async () => {
      const { token } = await issue({ user: 'path-check' });
      const client = await connectClient(`${gw.url}/mcp`, { Authorization: `Bearer ${token}` });
      const sid = (client.transport as unknown as { sessionId: string }).sessionId;
      const other = await rawPost(
        `${gw.url}/mcp/remote`,
        { jsonrpc: '2.0', id: 2, method: 'tools/list' },
        { authorization: `Bearer ${token}`, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' },
      );
      expect(other.status).toBe(404);
      await client.close();
    });

    it('Origin: an allowed origin passes (with CORS headers), another is 403', async () => {
      const { token } = await issue({ user: 'browser' });
      const ok = await rawPost(`${gw.url}/mcp`, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { authorization: `Bearer ${token}`, origin: 'https://app.example.com' });
      expect(ok.status).toBe(200);
      expect(ok.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
      const bad = await rawPost(`${gw.url}/mcp`, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { authorization: `Bearer ${token}`, origin: 'https://evil.example.com' });
      expect(bad.status).toBe(403);
    });
  });
});
