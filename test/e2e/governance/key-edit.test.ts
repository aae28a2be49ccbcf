import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { FakeUpstream } from '../../helpers/fake-upstream.js';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';
import { answers, CHAT, chatBody, post, UPSTREAM_CHAT } from '../../helpers/routing-harness.js';

const ADMIN = 'admin-token-key-edit-0123456789abcdef';
const HELD = 'sk-held-key-edit-0001';
const FILE_KEY = 'file-key-key-edit-0123456789abcdef';
const FILE_VIEWER = 'file-viewer-key-edit-0123456789abcdef';

type Json = any;

/**
 * PATCH /v1/auth/tokens/{id}: a key's name, models, limits, budgets, metadata and expiry change
 * at once (the next request with the key sees them); its value, user, team and scopes cannot
 * change; roles as for issuing keys; file-defined and revoked keys are 409; every edit audited.
 */
describe('editing a gateway key (PATCH /v1/auth/tokens/{id})', () => {
  let upstream: FakeUpstream;
  let gw: TestGateway;

  const call = async (method: string, path: string, credential: string, body?: unknown, raw?: string): Promise<{ status: number; json: Json }> => {
    const headers: Record<string, string> = { authorization: `Bearer ${credential}` };
    if (body !== undefined || raw !== undefined) headers['content-type'] = 'application/json';
    const res = await request(`${gw.url}${path}`, { method: method as 'GET', headers, body: raw ?? (body === undefined ? undefined : JSON.stringify(body)) });
    return { status: res.statusCode, json: await res.body.json() };
  };
  const patch = (id: string, body: unknown, credential = ADMIN) => call('PATCH', `/v1/auth/tokens/${id}`, credential, body);
  const issue = async (body: Record<string, unknown> = {}): Promise<{ id: string; token: string } & Json> => {
    const res = await call('POST', '/v1/auth/tokens', ADMIN, { user: 'dev@example.com', ...body });
    expect(res.status).toBe(201);
    return res.json;
  };
  const chat = (key: string, model = 'gpt', extra: Record<string, unknown> = {}) => post(gw.url, CHAT, chatBody({ model, ...extra }), { authorization: `Bearer ${key}` });

  beforeAll(async () => {
    upstream = await new FakeUpstream().start();
    gw = await startGateway({
      logging: { level: 'warn' },
      auth: {
        adminToken: ADMIN,
        apiKeys: [
          { key: FILE_KEY, user: 'file-user@example.com', team: 'alpha' },
          { key: FILE_VIEWER, user: 'vera@example.com', roles: ['viewer'] },
        ],
      },
      providers: { openai: { baseUrl: `${upstream.url}/v1` } },
      credentials: { main: { provider: 'openai', api_key: HELD } },
      models: { gpt: { credential: 'main', model: 'gpt-4o-mini' }, mini: { credential: 'main', model: 'gpt-4o-mini' } },
    });
  });
  afterAll(async () => {
    await gw?.close();
    await upstream?.stop();
  });
  beforeEach(() => {
    upstream.requests.length = 0;
    upstream.on(UPSTREAM_CHAT, answers('ok'));
  });

  it('changes each editable field, keeps the others, null removes one; the answer and the list never show the value', async () => {
    const key = await issue({ name: 'before', models: ['gpt'], limits: { rpm: 100, tpm: 5000 }, metadata: { owner: 'search' } });
    const expiresAt = Math.floor(Date.now() / 1000) + 7 * 86_400;
    const edited = await patch(key.id, {
      name: 'after',
      models: ['gpt', 'mini'],
      limits: { rpm: 50, maxParallel: 3 },
      budgets: [{ limit_usd: 5, window: { period: 'month' } }],
      metadata: { owner: 'ads', tier: 1 },
      expires_at: expiresAt,
    });
    expect(edited.status).toBe(200);
    expect(edited.json).toMatchObject({
      id: key.id,
      object: 'auth.token',
      user: 'dev@example.com',
      name: 'after',
      models: ['gpt', 'mini'],
      // limits merge: tpm stays, rpm changes, maxParallel is added.
      limits: { rpm: 50, tpm: 5000, maxParallel: 3 },
      budgets: [{ limit_usd: 5, window: { period: 'month' } }],
      metadata: { owner: 'ads', tier: 1 },
      expires_at: expiresAt,
      revoked_at: null,
      blocked: false,
      last4: key.token.slice(-4),
    });
    expect(edited.json.token).toBeUndefined();
    expect(JSON.stringify(edited.json)).not.toContain(key.token);

    // A limit set to null goes, the others stay; a field left out stays as it was.
    const fewer = await patch(key.id, { limits: { tpm: null } });
    expect(fewer.json.limits).toEqual({ rpm: 50, maxParallel: 3 });
    expect(fewer.json.name).toBe('after');
    const cleared = await patch(key.id, { name: null, models: null, limits: null, budgets: null, metadata: null });
    expect(cleared.status).toBe(200);
    for (const field of ['name', 'models', 'limits', 'budgets', 'metadata']) expect(cleared.json[field]).toBeUndefined();
    expect(cleared.json.expires_at).toBe(expiresAt);

    const list = await request(`${gw.url}/v1/auth/tokens?search=${key.id}`, { headers: { authorization: `Bearer ${ADMIN}` } });
    const text = await list.body.text();
    expect(JSON.parse(text).data).toEqual([expect.objectContaining({ id: key.id, expires_at: expiresAt })]);
    expect(JSON.parse(text).data[0].models).toBeUndefined();
    expect(text).not.toContain(key.token);
  });

  it('a model taken off the key is refused on its very next request exactly as an unknown model; given back, it works again', async () => {
    const key = await issue({ models: ['gpt', 'mini'] });
    // The key is looked up (and its lookup cached) before the edit.
    expect((await chat(key.token, 'gpt')).status).toBe(200);
    expect((await patch(key.id, { models: ['mini'] })).status).toBe(200);
    const refused = await chat(key.token, 'gpt');
    const unknown = await chat(key.token, 'gpt-none');
    expect(refused.status).toBe(404);
    expect(refused.json).toMatchObject({ status: 'failure', error: { type: 'provider_error', code: 'model_not_found', param: 'model' } });
    expect(unknown.status).toBe(404);
    // The same body but for the name the caller sent.
    expect(unknown.json).toEqual(JSON.parse(JSON.stringify(refused.json).replaceAll('gpt', 'gpt-none')));
    expect((await chat(key.token, 'mini')).status).toBe(200);
    expect(upstream.requests).toHaveLength(2);
    // GET /v1/models lists what the key may use now.
    const models = await request(`${gw.url}/v1/models`, { headers: { authorization: `Bearer ${key.token}` } });
    expect(((await models.body.json()) as Json).data.map((m: Json) => m.id)).toEqual(['mini']);
    expect((await patch(key.id, { models: null })).status).toBe(200);
    expect((await chat(key.token, 'gpt')).status).toBe(200);
  });

  it('a lower rpm limits the key from the next request on; limits: null lifts it', async () => {
    for (let attempt = 0; attempt < 3; attempt++) {
      const key = await issue({});
      expect((await chat(key.token)).status).toBe(200);
      const minute = Math.floor(Date.now() / 60_000);
      expect((await patch(key.id, { limits: { rpm: 1 } })).status).toBe(200);
      const statuses = [(await chat(key.token)).status];
      const last = await chat(key.token);
      statuses.push(last.status);
      // A minute boundary crossed between the requests starts a new window: try again.
      if (Math.floor(Date.now() / 60_000) !== minute) continue;
      expect(statuses).toEqual([200, 429]);
      expect(last.json).toMatchObject({ status: 'failure', error: { code: 'rate_limit_exceeded' } });
      expect((await patch(key.id, { limits: null })).status).toBe(200);
      expect((await chat(key.token)).status).toBe(200);
      return;
    }
    throw new Error('three minute boundaries crossed');
  });

  it('a money budget given to the key applies to its next request; budgets: null removes it', async () => {
    const key = await issue({});
    expect((await chat(key.token, 'gpt', { max_tokens: 1000 })).status).toBe(200);
    expect((await patch(key.id, { budgets: [{ name: 'tiny', limit_usd: 0.000001, window: { period: 'day' } }] })).status).toBe(200);
    const refused = await chat(key.token, 'gpt', { max_tokens: 1000 });
    expect(refused.status).toBe(429);
    expect(refused.json).toMatchObject({ status: 'failure', error: { type: 'rate_limit_error', code: 'budget_exceeded', param: null } });
    expect(refused.json.error.message).toContain('tiny');
    expect(upstream.requests).toHaveLength(1);
    expect((await patch(key.id, { budgets: null })).status).toBe(200);
    expect((await chat(key.token, 'gpt', { max_tokens: 1000 })).status).toBe(200);
  });

  it('a budget made through /v1/admin/budgets for the key applies to its next request, and deleting it lifts it', async () => {
    const key = await issue({});
    // served twice first: what applies to the key is worked out and kept between its requests
    expect((await chat(key.token, 'gpt', { max_tokens: 1000 })).status).toBe(200);
    expect((await chat(key.token, 'gpt', { max_tokens: 1000 })).status).toBe(200);
    const made = await call('POST', '/v1/admin/budgets', ADMIN, { scope: 'key', subject: key.id, name: 'api-tiny', limit_usd: 0.000001, window: { period: 'day' } });
    expect(made.status).toBe(201);
    // twice each: the first request after a change reads the budgets again, the next one is served from what it read
    for (let i = 0; i < 2; i++) {
      const refused = await chat(key.token, 'gpt', { max_tokens: 1000 });
      expect(refused.status).toBe(429);
      expect(refused.json.error.message).toContain('api-tiny');
    }
    expect((await call('DELETE', `/v1/admin/budgets/${made.json.id}`, ADMIN)).status).toBe(200);
    for (let i = 0; i < 2; i++) expect((await chat(key.token, 'gpt', { max_tokens: 1000 })).status).toBe(200);
    expect(upstream.requests).toHaveLength(4);
  });

  it('an expires_at in the past ends nothing: 400; a nearer one is kept', async () => {
    const key = await issue({});
    const now = Math.floor(Date.now() / 1000);
    const past = await patch(key.id, { expires_at: now - 10 });
    expect(past.status).toBe(400);
    expect(past.json).toMatchObject({ status: 'failure', error: { type: 'invalid_request_error', param: 'expires_at' } });
    const far = await patch(key.id, { expires_at: now + 3651 * 86_400 });
    expect(far.status).toBe(400);
    expect(far.json.error.param).toBe('expires_at');
    const nearer = await patch(key.id, { expires_at: now + 3600 });
    expect(nearer.json.expires_at).toBe(now + 3600);
    expect((await chat(key.token)).status).toBe(200);
  });

  it('refuses what cannot be edited with a 400 naming the field, in the contract error shape; nothing changes', async () => {
    const key = await issue({ team: 'alpha', name: 'kept' });
    const cases: [unknown, string][] = [
      [{ token: 'gwt_chosen' }, 'token'],
      [{ user: 'someone-else' }, 'user'],
      [{ team: 'beta' }, 'team'],
      [{ scopes: ['mcp:read'] }, 'scopes'],
      [{ roles: ['admin'] }, 'roles'],
      [{ name: 'ok', user: 'x' }, 'user'],
      [{ colour: 'blue' }, 'colour'],
      [{ limits: { rpm: 0 } }, 'limits.rpm'],
      [{ limits: { rpm: 10, burst: 3 } }, 'limits.burst'],
      [{ models: 'gpt' }, 'models'],
      [{ models: [''] }, 'models[0]'],
      [{ budgets: [{ limit_usd: -1 }] }, 'budgets[0].limit_usd'],
      [{ metadata: [] }, 'metadata'],
      [{ expires_at: 'tomorrow' }, 'expires_at'],
      [{}, 'body'],
      [[], 'body'],
    ];
    for (const [body, param] of cases) {
      const res = await patch(key.id, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json, JSON.stringify(body)).toMatchObject({ status: 'failure', error: { type: 'invalid_request_error', param } });
      expect(typeof res.json.error.message).toBe('string');
    }
    const team = await patch(key.id, { team: 'beta' });
    expect(team.json.error.message).toContain('team');
    const value = await patch(key.id, { token: 'gwt_chosen' });
    expect(value.json.error.message).toContain('rotate');
    for (const field of ['constructor', '__proto__']) {
      const odd = await call('PATCH', `/v1/auth/tokens/${key.id}`, ADMIN, undefined, `{"${field}":{}}`);
      expect(odd.status).toBe(400);
      expect(odd.json.error).toMatchObject({ param: field, message: expect.stringContaining('is not a field of a key that can be edited') });
    }
    const invalidJson = await call('PATCH', `/v1/auth/tokens/${key.id}`, ADMIN, undefined, '{"name":');
    expect(invalidJson.status).toBe(400);
    expect(invalidJson.json.error.param).toBe('body');
    const after = await call('GET', `/v1/auth/tokens?search=${key.id}`, ADMIN);
    expect(after.json.data[0]).toMatchObject({ user: 'dev@example.com', team: 'alpha', name: 'kept' });
  });

  it('unknown keys are 404; revoked and expired keys 409; keys of the config file 409 naming where they are set', async () => {
    expect((await patch('tok_nothing', { name: 'x' })).status).toBe(404);
    expect((await patch('config-key-9', { name: 'x' })).status).toBe(404);
    const revoked = await issue({});
    expect((await call('DELETE', `/v1/auth/tokens/${revoked.id}`, ADMIN)).status).toBe(200);
    const refused = await patch(revoked.id, { name: 'again' });
    expect(refused.status).toBe(409);
    expect(refused.json).toMatchObject({ status: 'failure', error: { type: 'invalid_request_error', code: 'conflict', param: 'id' } });
    expect(refused.json.error.message).toContain('revoked');
    const expiring = await issue({ expiresIn: '1s' });
    await expect.poll(async () => (await chat(expiring.token)).status, { timeout: 5000, interval: 200 }).toBe(401);
    const expired = await patch(expiring.id, { expires_at: Math.floor(Date.now() / 1000) + 3600 });
    expect(expired.status).toBe(409);
    expect(expired.json.error.message).toContain('expired');
    const file = await patch('config-key-0', { models: ['mini'] });
    expect(file.status).toBe(409);
    expect(file.json).toMatchObject({ status: 'failure', error: { code: 'conflict', param: 'id' } });
    expect(file.json.error.message).toContain('auth.apiKeys[0]');
  });

  it('roles: admin and admin-role keys edit any key; a viewer nothing; a team_admin only its own team’s keys', async () => {
    const adminRole = (await issue({ user: 'ops', roles: ['admin'] })).token;
    const viewer = (await issue({ user: 'watcher', roles: ['viewer'] })).token;
    const lead = (await issue({ user: 'lead', team: 'alpha', roles: ['team_admin'] })).token;
    const alphaKey = await issue({ team: 'alpha' });
    const betaKey = await issue({ team: 'beta' });
    expect((await patch(betaKey.id, { name: 'by-admin-role' }, adminRole)).json.name).toBe('by-admin-role');
    for (const credential of [viewer, FILE_VIEWER]) {
      const res = await patch(alphaKey.id, { name: 'by-viewer' }, credential);
      expect(res.status).toBe(403);
      expect(res.json).toMatchObject({ status: 'failure', error: { type: 'permission_error' } });
    }
    const own = await patch(alphaKey.id, { models: ['mini'], limits: { rpm: 10 } }, lead);
    expect(own.status).toBe(200);
    expect(own.json).toMatchObject({ models: ['mini'], limits: { rpm: 10 } });
    const other = await patch(betaKey.id, { name: 'by-lead' }, lead);
    expect(other.status).toBe(403);
    expect(other.json.error.message).toContain('alpha');
    // Not into another team either: the team is not editable.
    expect((await patch(alphaKey.id, { team: 'beta' }, lead)).status).toBe(400);
    // A plain key is no admin credential.
    expect((await patch(alphaKey.id, { name: 'x' }, alphaKey.token)).status).toBe(403);
    const list = await call('GET', `/v1/auth/tokens?search=${betaKey.id}`, ADMIN);
    expect(list.json.data[0].name).toBe('by-admin-role');
  });

  it('keeps each edit in the audit log with who, before and after, never the value', async () => {
    const key = await issue({ name: 'audited', models: ['gpt'] });
    expect((await patch(key.id, { models: ['mini'], limits: { rpm: 7 } })).status).toBe(200);
    const audit = await call('GET', '/v1/admin/audit?resource=token&limit=100', ADMIN);
    expect(audit.status).toBe(200);
    const entry = audit.json.data.find((e: Json) => e.action === 'token.update' && e.resource_id === key.id);
    expect(entry).toMatchObject({
      object: 'audit.entry',
      action: 'token.update',
      resource: 'token',
      resource_id: key.id,
      actor: { kind: 'admin', role: 'admin' },
      before: { id: key.id, name: 'audited', models: ['gpt'] },
      after: { id: key.id, name: 'audited', models: ['mini'], limits: { rpm: 7 } },
    });
    expect(entry.before.limits).toBeUndefined();
    expect(JSON.stringify(audit.json)).not.toContain(key.token);
    // A refused edit writes nothing.
    expect((await patch(key.id, { user: 'x' })).status).toBe(400);
    const again = await call('GET', '/v1/admin/audit?resource=token&limit=100', ADMIN);
    expect(again.json.data.filter((e: Json) => e.action === 'token.update' && e.resource_id === key.id)).toHaveLength(1);
  });
});
