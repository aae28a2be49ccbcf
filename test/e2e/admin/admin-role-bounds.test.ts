// What a black-box audit of the admin API found a team_admin (and a blocked key) could do beyond
// its role: each case here was allowed before its fix. Through the HTTP API of a gateway in-process.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueKey } from '../../helpers/gateway-keys.js';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';

const ADMIN = 'admin-token-role-bounds-0123456789abcdef';
/** A key of the config file (auth.apiKeys[0]), of the team beta. */
const FILE_KEY = 'cfg-role-bounds-beta-key-0123456789abcdef';

type Json = any;

describe('the admin API keeps a team_admin within its team, and a blocked key out', () => {
  let gw: TestGateway;
  let lead: { id: string; token: string };

  const call = async (method: string, path: string, credential: string | undefined, body?: unknown): Promise<{ status: number; body: Json }> => {
    const headers: Record<string, string> = {};
    if (credential) headers.authorization = `Bearer ${credential}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${gw.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };
  const admin = (method: string, path: string, body?: unknown) => call(method, path, ADMIN, body);
  const asLead = (method: string, path: string, body?: unknown) => call(method, path, lead.token, body);
  const refused = (res: { status: number; body: Json }) => {
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ status: 'failure', error: { type: 'permission_error', code: 'insufficient_permissions' } });
    return res.body.error.message as string;
  };

  beforeAll(async () => {
    gw = await startGateway({
      auth: { adminToken: ADMIN, apiKeys: [{ key: FILE_KEY, user: 'cfg@beta', team: 'beta' }] },
      // alpha (file) may use the model fast only; beta is an API team of the same organisation.
      tenants: { organizations: { acme: {}, globex: {} }, teams: { alpha: { organization: 'acme', models: ['fast', 'openai/*'] } } },
    });
    expect((await admin('POST', '/v1/admin/teams', { id: 'beta', organization: 'acme' })).status).toBe(201);
    lead = await issueKey(gw.url, ADMIN, { user: 'lead@alpha', team: 'alpha', roles: ['team_admin'], permissions: { servers: ['docs'] }, scopes: ['mcp:read'] });
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('a team_admin role on a user record manages the user’s own team only, never the team of a key named like it', async () => {
    // mallory is a plain member of beta (her key, from the admin); alpha's team_admin makes a user record of that name in alpha.
    const mallory = await issueKey(gw.url, ADMIN, { user: 'mallory@example.com', team: 'beta' });
    const bobKey = await issueKey(gw.url, ADMIN, { user: 'bob@example.com', team: 'beta' });
    refused(await call('GET', '/v1/auth/tokens', mallory.token));
    const made = await asLead('POST', '/v1/admin/users', { id: 'mallory@example.com', roles: ['team_admin'] });
    expect(made.status).toBe(201);
    expect(made.body.team).toBe('alpha');
    // Her beta key gains nothing: not beta's keys, not a session.
    refused(await call('GET', '/v1/auth/tokens', mallory.token));
    refused(await call('POST', `/v1/auth/tokens/${bobKey.id}/block`, mallory.token));
    refused(await call('POST', '/v1/admin/session', undefined, { token: mallory.token }));
    expect((await admin('GET', '/v1/auth/tokens?search=bob@example.com')).body.data[0].blocked).toBe(false);
    // A key of alpha for that user does manage alpha (the role was given there).
    const inAlpha = await issueKey(gw.url, ADMIN, { user: 'mallory@example.com', team: 'alpha' });
    const listed = await call('GET', '/v1/auth/tokens', inAlpha.token);
    expect(listed.status).toBe(200);
    expect(new Set(listed.body.data.map((t: Json) => t.team))).toEqual(new Set(['alpha']));
  });

  it('a team_admin adds and tightens its team’s budget, but cannot raise, loosen or delete it', async () => {
    const cap = await admin('POST', '/v1/admin/budgets', { scope: 'team', subject: 'alpha', limit_usd: 10, limit_tokens: 5000, window: { period: 'month' } });
    expect(cap.status).toBe(201);
    const id = cap.body.id as string;
    expect((await asLead('POST', '/v1/admin/users', { id: 'carol@alpha' })).status).toBe(201);
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ['raise', { limit_usd: 1_000_000 }, /raise its limit_usd/],
      ['remove a limit', { limit_tokens: null }, /remove its limit_tokens/],
      ['audit only', { action: 'audit' }, /audit only/],
      ['window', { window: { period: 'total' } }, /window/],
      ['scope', { scope: 'user', subject: 'carol@alpha' }, /another scope or subject/],
    ];
    for (const [, patch, why] of cases) expect(refused(await asLead('PATCH', `/v1/admin/budgets/${id}`, patch))).toMatch(why);
    expect(refused(await asLead('DELETE', `/v1/admin/budgets/${id}`))).toMatch(/delete/);
    // Nothing of it was written.
    expect((await admin('GET', `/v1/admin/budgets/${id}`)).body).toMatchObject({ limit_usd: 10, limit_tokens: 5000, window: { period: 'month' } });
    expect((await admin('GET', '/v1/admin/audit?resource=budget&actor=lead@alpha')).body.data).toEqual([]);

    // Tightening is its to do: a lower limit, a name, alerts; and a budget of its own on the team.
    const lower = await asLead('PATCH', `/v1/admin/budgets/${id}`, { limit_usd: 4, name: 'alpha cap', alerts: [80] });
    expect(lower.status).toBe(200);
    expect(lower.body).toMatchObject({ limit_usd: 4, limit_tokens: 5000, name: 'alpha cap', alerts: [80] });
    const own = await asLead('POST', '/v1/admin/budgets', { scope: 'team', subject: 'alpha', limit_usd: 2, window: { period: 'day' } });
    expect(own.status).toBe(201);
    expect(refused(await asLead('PATCH', `/v1/admin/budgets/${own.body.id}`, { limit_usd: 3 }))).toMatch(/raise/);
    // Its users' and keys' budgets stay its own to set (the team's cap still bounds them).
    const key = await issueKey(gw.url, ADMIN, { user: 'dev@alpha', team: 'alpha' });
    const keyBudget = await asLead('POST', '/v1/admin/budgets', { scope: 'key', subject: key.id, limit_usd: 1 });
    expect(keyBudget.status).toBe(201);
    expect((await asLead('PATCH', `/v1/admin/budgets/${keyBudget.body.id}`, { limit_usd: 3 })).status).toBe(200);
    expect((await asLead('DELETE', `/v1/admin/budgets/${keyBudget.body.id}`)).status).toBe(200);
    // The admin still may.
    expect((await admin('PATCH', `/v1/admin/budgets/${id}`, { limit_usd: 50 })).status).toBe(200);
    expect((await admin('DELETE', `/v1/admin/budgets/${own.body.id}`)).status).toBe(200);
  });

  it('a team_admin issues keys in its team’s organisation, with its team’s models, and no tool server or scope beyond its own key', async () => {
    const before = (await admin('GET', '/v1/auth/tokens')).body.data.length;
    expect(refused(await asLead('POST', '/v1/auth/tokens', { user: 'dev@alpha', organization: 'globex' }))).toMatch(/organization \(acme\)/);
    expect(refused(await asLead('POST', '/v1/auth/tokens', { user: 'dev@alpha', models: ['smart'] }))).toMatch(/smart/);
    expect(refused(await asLead('POST', '/v1/auth/tokens', { user: 'dev@alpha', models: ['*'] }))).toMatch(/\*/);
    expect(refused(await asLead('POST', '/v1/auth/tokens', { user: 'dev@alpha', permissions: { servers: ['github'] } }))).toMatch(/github/);
    expect(refused(await asLead('POST', '/v1/auth/tokens', { user: 'dev@alpha', mcp: { servers: ['*'] } }))).toMatch(/\*/);
    expect(refused(await asLead('POST', '/v1/auth/tokens', { user: 'dev@alpha' }))).toMatch(/every one/);
    expect(refused(await asLead('POST', '/v1/auth/tokens', { user: 'dev@alpha', permissions: { servers: ['docs'] }, scopes: ['mcp:write'] }))).toMatch(/mcp:write/);
    expect((await admin('GET', '/v1/auth/tokens')).body.data.length).toBe(before);

    // Within its bounds: made, in acme.
    const ok = await asLead('POST', '/v1/auth/tokens', { user: 'dev@alpha', models: ['fast', 'openai/gpt-4o'], permissions: { servers: ['docs'] }, scopes: ['mcp:read'] });
    expect(ok.status).toBe(201);
    expect(ok.body).toMatchObject({ team: 'alpha', organization: 'acme', models: ['fast', 'openai/gpt-4o'] });
    const named = await asLead('POST', '/v1/auth/tokens', { user: 'dev@alpha', organization: 'acme', permissions: { servers: ['docs'] }, scopes: ['mcp:read'] });
    expect(named.status).toBe(201);

    // An edit of one of its keys stays within the team's models too.
    expect(refused(await asLead('PATCH', `/v1/auth/tokens/${ok.body.id}`, { models: ['smart'] }))).toMatch(/smart/);
    expect((await admin('GET', '/v1/auth/tokens?search=dev@alpha')).body.data.find((t: Json) => t.id === ok.body.id).models).toEqual(['fast', 'openai/gpt-4o']);
    expect((await asLead('PATCH', `/v1/auth/tokens/${ok.body.id}`, { models: ['openai/gpt-4o-mini'] })).status).toBe(200);
    // A body of the wrong type is still the schema's 400.
    expect((await asLead('POST', '/v1/auth/tokens', { user: 'dev@alpha', models: 'fast', permissions: { servers: ['docs'] }, scopes: ['mcp:read'] })).status).toBe(400);
    // The admin is not bound by a team.
    expect((await admin('POST', '/v1/auth/tokens', { user: 'ops', team: 'alpha', organization: 'globex', models: ['smart'] })).status).toBe(201);
  });

  it('a key holding the admin role opens as a bearer every admin route its console session opens; a viewer reads the ledger, a team_admin its team’s usage only', async () => {
    const ops = await issueKey(gw.url, ADMIN, { user: 'root@example.com', roles: ['admin'] });
    const viewer = await issueKey(gw.url, ADMIN, { user: 'auditor@example.com', roles: ['viewer'] });
    const plain = await issueKey(gw.url, ADMIN, { user: 'plain@example.com', team: 'alpha' });
    const login = await fetch(`${gw.url}/v1/admin/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: ops.token }) });
    expect(login.status).toBe(201);
    const cookie = login.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    for (const path of ['/v1/admin/config', '/v1/admin/credentials', '/v1/admin/usage', '/v1/admin/requests']) {
      const bySession = await fetch(`${gw.url}${path}`, { headers: { cookie } });
      expect(bySession.status, path).toBe(200);
      expect((await call('GET', path, ops.token)).status, path).toBe(200);
    }
    for (const path of ['/v1/admin/usage', '/v1/admin/requests']) expect((await call('GET', path, viewer.token)).status, path).toBe(200);
    for (const path of ['/v1/admin/config', '/v1/admin/credentials']) refused(await call('GET', path, viewer.token));
    refused(await call('POST', '/v1/admin/config/reload', viewer.token));
    for (const key of [lead.token, plain.token]) {
      for (const path of ['/v1/admin/config', '/v1/admin/credentials', '/v1/admin/requests']) refused(await call('GET', path, key));
    }
    // The usage report: a team_admin's own team's only (test/e2e/governance/metering.test.ts checks its sums), a plain key none.
    expect((await call('GET', '/v1/admin/usage', lead.token)).body).toMatchObject({ object: 'usage_report', team: 'alpha' });
    refused(await call('GET', '/v1/admin/usage', plain.token));
  });

  it('a blocked key is a 403 on the admin API and at login, as on every route; a revoked key cannot be blocked or unblocked', async () => {
    const ops = await issueKey(gw.url, ADMIN, { user: 'ops@example.com', roles: ['admin'] });
    expect((await call('GET', '/v1/admin/teams', ops.token)).status).toBe(200);
    expect((await admin('POST', `/v1/auth/tokens/${ops.id}/block`)).status).toBe(200);
    expect(refused(await call('GET', '/v1/admin/teams', ops.token))).toMatch(/blocked/);
    expect(refused(await call('GET', '/v1/auth/tokens', ops.token))).toMatch(/blocked/);
    expect(refused(await call('GET', '/v1/admin/usage', ops.token))).toMatch(/blocked/);
    expect(refused(await call('POST', '/v1/admin/session', undefined, { token: ops.token }))).toMatch(/blocked/);
    // A wrong credential is still a 401.
    expect((await call('GET', '/v1/admin/teams', 'gwt_not-a-key')).status).toBe(401);

    expect((await admin('DELETE', `/v1/auth/tokens/${ops.id}`)).status).toBe(200);
    for (const action of ['unblock', 'block']) {
      const res = await admin('POST', `/v1/auth/tokens/${ops.id}/${action}`);
      expect(res.status).toBe(409);
      expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code: 'conflict', param: 'id' });
    }
    expect((await admin('GET', '/v1/auth/tokens?search=ops@example.com')).body.data[0]).toMatchObject({ blocked: true, revoked_at: expect.any(Number) });
  });

  it('a key of the config file is read-only through the API: every write is a 409 naming where it is set (a team_admin of another team: 403)', async () => {
    for (const [method, path] of [
      ['DELETE', '/v1/auth/tokens/config-key-0'],
      ['POST', '/v1/auth/tokens/config-key-0/rotate'],
      ['POST', '/v1/auth/tokens/config-key-0/block'],
      ['POST', '/v1/auth/tokens/config-key-0/unblock'],
      ['PATCH', '/v1/auth/tokens/config-key-0'],
    ] as const) {
      const res = await admin(method, path, method === 'PATCH' ? { name: 'x' } : undefined);
      expect([path, res.status]).toEqual([path, 409]);
      expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code: 'conflict', param: 'id' });
      expect(res.body.error.message).toContain('auth.apiKeys[0]');
      refused(await asLead(method, path, method === 'PATCH' ? { name: 'x' } : undefined));
    }
    // It still works, unchanged; an id past the file's keys is an unknown key.
    expect((await call('GET', '/v1/me', FILE_KEY)).status).toBe(200);
    expect((await admin('DELETE', '/v1/auth/tokens/config-key-1')).status).toBe(404);
    expect((await admin('GET', '/v1/admin/audit?resource=token&limit=100')).body.data.filter((e: Json) => e.resource_id === 'config-key-0')).toEqual([]);
  });

  it('an unknown id of any length is a 404 whose message shows at most 64 characters of it', async () => {
    const long = 'x'.repeat(3000);
    for (const [method, path] of [
      ['GET', `/v1/admin/organizations/${long}`],
      ['PATCH', `/v1/admin/teams/${long}`],
      ['DELETE', `/v1/admin/budgets/${long}`],
      ['DELETE', `/v1/auth/tokens/${long}`],
      ['POST', `/v1/auth/tokens/${long}/rotate`],
      ['PATCH', `/v1/auth/tokens/${long}`],
    ] as const) {
      const res = await admin(method, path, method === 'PATCH' ? { name: 'n' } : undefined);
      expect([path.slice(0, 24), res.status, res.body.error.code]).toEqual([path.slice(0, 24), 404, 'not_found']);
      expect(res.body.error.message.length).toBeLessThan(120);
    }
  });
});
