import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';
import { dropSharedState, PG_URL } from '../../helpers/shared-stores.js';
import { API_BUDGETS } from '../../../src/features/governance/tenants/tenant-services.js';
import { pickBudgets } from '../../../src/features/governance/tenants/api-budgets.js';

const ADMIN = 'admin-token-0123456789abcdef0123456789';

/** The config file's tenants and budgets (source: file). */
const tenants = {
  organizations: { acme: { name: 'Acme' } },
  teams: { core: { name: 'Core', organization: 'acme' } },
  users: { root: { team: 'core', roles: ['admin'] }, watcher: { team: 'core', roles: ['viewer'] } },
};
const budgets = { team: { core: { limit_usd: 10, window: { period: 'month' } } } };

type Json = any;

describe.each(['sqlite', 'postgres'] as const)('tenants and the admin API on %s', (store) => {
  const schema = `gw_tenants_${randomBytes(6).toString('hex')}`;
  let gw: TestGateway;
  const keys: Record<string, string> = {};
  let url: string;

  const call = async (method: string, path: string, credential: string | undefined, body?: unknown): Promise<{ status: number; body: Json }> => {
    const headers: Record<string, string> = {};
    if (credential) headers.authorization = `Bearer ${credential}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, body: await res.json() };
  };
  const admin = (method: string, path: string, body?: unknown) => call(method, path, ADMIN, body);
  const issue = async (fields: Record<string, unknown>): Promise<{ id: string; token: string }> => {
    const res = await admin('POST', '/v1/auth/tokens', fields);
    expect(res.status).toBe(201);
    return res.body;
  };

  beforeAll(async () => {
    const storage = store === 'postgres' ? { storage: { type: 'postgres', url: PG_URL, schema } } : {};
    gw = await startGateway({ auth: { adminToken: ADMIN }, tenants, budgets, ...storage });
    url = gw.url;
    // Teams of the API for the role matrix: alpha and beta under an API organisation.
    expect((await admin('POST', '/v1/admin/organizations', { id: 'globex', name: 'Globex' })).status).toBe(201);
    for (const team of ['alpha', 'beta']) expect((await admin('POST', '/v1/admin/teams', { id: team, organization: 'globex' })).status).toBe(201);
    keys.rootUser = (await issue({ user: 'root' })).token;
    keys.adminRole = (await issue({ user: 'ops', roles: ['admin'] })).token;
    keys.viewer = (await issue({ user: 'watcher' })).token;
    keys.alphaAdmin = (await issue({ user: 'lead-a', team: 'alpha', roles: ['team_admin'] })).token;
    keys.plain = (await issue({ user: 'someone', team: 'alpha' })).token;
  });
  afterAll(async () => {
    await gw?.close();
    if (store === 'postgres') await dropSharedState('postgres', '', schema);
  });

  it('organizations: CRUD, file objects listed and read-only, no delete while teams remain', async () => {
    const created = await admin('POST', '/v1/admin/organizations', { id: 'initech', name: 'Initech', metadata: { tier: 'gold' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ object: 'organization', id: 'initech', name: 'Initech', source: 'api', metadata: { tier: 'gold' } });
    expect((await admin('GET', '/v1/admin/organizations/initech')).body.name).toBe('Initech');
    const patched = await admin('PATCH', '/v1/admin/organizations/initech', { name: 'Initech Ltd', metadata: null });
    expect(patched.status).toBe(200);
    expect(patched.body.name).toBe('Initech Ltd');
    expect(patched.body.metadata).toBeUndefined();

    const list = await admin('GET', '/v1/admin/organizations');
    expect(list.body.object).toBe('list');
    expect(list.body.has_more).toBe(false);
    const ids = list.body.data.map((o: Json) => `${o.id}:${o.source}`);
    expect(ids).toEqual(['initech:api', 'globex:api', 'acme:file']);
    const page = await admin('GET', '/v1/admin/organizations?limit=1&after=initech');
    expect(page.body.data.map((o: Json) => o.id)).toEqual(['globex']);
    expect(page.body.has_more).toBe(true);
    expect((await admin('GET', '/v1/admin/organizations?limit=0')).status).toBe(400);

    const fileEdit = await admin('PATCH', '/v1/admin/organizations/acme', { name: 'x' });
    expect(fileEdit.status).toBe(409);
    expect(fileEdit.body.error).toMatchObject({ type: 'invalid_request_error', code: 'conflict' });
    expect(fileEdit.body.error.message).toContain('config file (tenants.organizations.acme)');
    expect((await admin('DELETE', '/v1/admin/organizations/acme')).status).toBe(409);
    expect((await admin('POST', '/v1/admin/organizations', { id: 'acme' })).status).toBe(409);
    expect((await admin('POST', '/v1/admin/organizations', { id: 'initech' })).status).toBe(409);

    const held = await admin('DELETE', '/v1/admin/organizations/globex');
    expect(held.status).toBe(409);
    expect(held.body).toMatchObject({ status: 'failure', error: { code: 'conflict', param: 'id' } });
    expect(held.body.error.message).toContain('alpha');

    expect((await admin('DELETE', '/v1/admin/organizations/initech')).body).toEqual({ object: 'organization', id: 'initech', deleted: true });
    expect((await admin('GET', '/v1/admin/organizations/initech')).status).toBe(404);
    expect((await admin('DELETE', '/v1/admin/organizations/initech')).status).toBe(404);
  });

  it('teams and users: referential checks name the field', async () => {
    const orphan = await admin('POST', '/v1/admin/teams', { id: 'ghosts', organization: 'nowhere' });
    expect(orphan.status).toBe(400);
    expect(orphan.body.error.param).toBe('organization');
    const team = await admin('POST', '/v1/admin/teams', { id: 'gamma', organization: 'acme', models: ['gpt-*'] });
    expect(team.body).toMatchObject({ object: 'team', organization: 'acme', models: ['gpt-*'], source: 'api' });
    expect((await admin('PATCH', '/v1/admin/teams/gamma', { organization: 'nowhere' })).body.error.param).toBe('organization');

    const lost = await admin('POST', '/v1/admin/users', { id: 'lost', team: 'nowhere' });
    expect(lost.status).toBe(400);
    expect(lost.body.error.param).toBe('team');
    const user = await admin('POST', '/v1/admin/users', { id: 'gina', team: 'gamma', email: 'gina@example.com', roles: ['team_admin'] });
    expect(user.status).toBe(201);
    expect((await admin('DELETE', '/v1/admin/teams/gamma')).status).toBe(409);
    expect((await admin('PATCH', '/v1/admin/users/gina', { team: 'core' })).body.team).toBe('core');
    expect((await admin('DELETE', '/v1/admin/teams/gamma')).status).toBe(200);
    expect((await admin('DELETE', '/v1/admin/users/gina')).status).toBe(200);
    const users = await admin('GET', '/v1/admin/users');
    expect(users.body.data.map((u: Json) => `${u.id}:${u.source}`)).toEqual(['root:file', 'watcher:file']);
    expect((await admin('POST', '/v1/admin/users', { id: 'bad', extra: 1 })).status).toBe(400);
    expect((await admin('PATCH', '/v1/admin/users/root', { name: 'x' })).status).toBe(409);
  });

  it('budgets: CRUD with scope and subject, file budgets listed, applicable budgets for the engine', async () => {
    const bad = await admin('POST', '/v1/admin/budgets', { scope: 'team', subject: 'alpha', limit_usd: -1 });
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe('limit_usd');
    expect((await admin('POST', '/v1/admin/budgets', { scope: 'planet', subject: 'x', limit_usd: 1 })).body.error.param).toBe('scope');
    expect((await admin('POST', '/v1/admin/budgets', { scope: 'team', subject: 'alpha' })).status).toBe(400);

    const engine = gw.gateway.services.require(API_BUDGETS);
    expect(pickBudgets(await engine.current(), { team: 'alpha' })).toEqual([]);
    const created = await admin('POST', '/v1/admin/budgets', { scope: 'team', subject: 'alpha', limit_usd: 5, window: { period: 'day' }, alerts: [50] });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ object: 'budget', scope: 'team', subject: 'alpha', limit_usd: 5, source: 'api' });
    const id = created.body.id as string;
    expect(pickBudgets(await engine.current(), { team: 'alpha', user: 'someone' })).toEqual([
      { id, scope: 'team', subject: 'alpha', budget: { limit_usd: 5, window: { period: 'day' }, alerts: [50] } },
    ]);
    const patched = await admin('PATCH', `/v1/admin/budgets/${id}`, { limit_usd: 7, action: 'audit' });
    expect(patched.body).toMatchObject({ limit_usd: 7, action: 'audit' });
    expect(pickBudgets(await engine.current(), { team: 'alpha' })[0]!.budget.limit_usd).toBe(7);

    const list = await admin('GET', '/v1/admin/budgets');
    expect(list.body.data.map((b: Json) => `${b.id}:${b.source}`)).toEqual([`${id}:api`, 'team:core:0:file']);
    expect((await admin('DELETE', '/v1/admin/budgets/team:core:0')).status).toBe(409);
    expect((await admin('DELETE', `/v1/admin/budgets/${id}`)).status).toBe(200);
    expect(pickBudgets(await engine.current(), { team: 'alpha' })).toEqual([]);
  });

  it('roles: admin token, admin-role keys, viewer, team_admin of its team and of another, plain key, no credential', async () => {
    // No credential: 401; a plain key: 403 permission_error.
    const none = await call('GET', '/v1/admin/teams', undefined);
    expect(none.status).toBe(401);
    expect(none.body.error.type).toBe('authentication_error');
    const plain = await call('GET', '/v1/admin/teams', keys.plain);
    expect(plain.status).toBe(403);
    expect(plain.body.error).toMatchObject({ type: 'permission_error', code: 'insufficient_permissions' });
    expect((await call('GET', '/v1/auth/tokens', keys.plain)).status).toBe(403);
    expect((await call('GET', '/v1/admin/teams', 'gwt_not-a-key')).status).toBe(401);

    // Roles on the key, and the user's roles in the tenants (root is admin in the config file).
    for (const key of [keys.adminRole, keys.rootUser]) {
      const made = await call('POST', '/v1/admin/users', key, { id: `u-${randomBytes(3).toString('hex')}`, team: 'beta' });
      expect(made.status).toBe(201);
      expect((await call('GET', '/v1/admin/audit?limit=1', key)).status).toBe(200);
    }

    // Viewer: reads everything, writes nothing (tokens included).
    expect((await call('GET', '/v1/admin/organizations', keys.viewer)).status).toBe(200);
    expect((await call('GET', '/v1/admin/audit', keys.viewer)).status).toBe(200);
    expect((await call('GET', '/v1/auth/tokens', keys.viewer)).status).toBe(200);
    expect((await call('POST', '/v1/admin/teams', keys.viewer, { id: 'nope', organization: 'acme' })).status).toBe(403);
    expect((await call('POST', '/v1/auth/tokens', keys.viewer, { user: 'x' })).status).toBe(403);

    // team_admin of alpha: its team's users, keys and budgets; nothing of beta; no organisations or audit.
    const ta = keys.alphaAdmin;
    const mine = await call('POST', '/v1/admin/users', ta, { id: 'alice' });
    expect(mine.status).toBe(201);
    expect(mine.body.team).toBe('alpha');
    expect((await call('POST', '/v1/admin/users', ta, { id: 'bob', team: 'beta' })).status).toBe(403);
    expect((await call('POST', '/v1/admin/users', ta, { id: 'carol', roles: ['admin'] })).status).toBe(403);
    expect((await call('PATCH', '/v1/admin/users/alice', ta, { team: 'beta' })).status).toBe(403);
    expect((await call('PATCH', '/v1/admin/users/alice', ta, { name: 'Alice' })).status).toBe(200);
    expect((await admin('POST', '/v1/admin/users', { id: 'dave', team: 'beta' })).status).toBe(201);
    expect((await call('GET', '/v1/admin/users/dave', ta)).status).toBe(403);
    expect((await call('DELETE', '/v1/admin/users/dave', ta)).status).toBe(403);
    const seen = await call('GET', '/v1/admin/users', ta);
    expect(seen.body.data.map((u: Json) => u.id)).toEqual(['alice']);
    expect((await call('GET', '/v1/admin/teams', ta)).body.data.map((t: Json) => t.id)).toEqual(['alpha']);
    expect((await call('GET', '/v1/admin/organizations', ta)).body.data).toEqual([]);
    expect((await call('POST', '/v1/admin/organizations', ta, { id: 'mine' })).status).toBe(403);
    expect((await call('PATCH', '/v1/admin/teams/alpha', ta, { name: 'A' })).status).toBe(403);
    expect((await call('GET', '/v1/admin/audit', ta)).status).toBe(403);

    const ownBudget = await call('POST', '/v1/admin/budgets', ta, { scope: 'user', subject: 'alice', limit_tokens: 1000 });
    expect(ownBudget.status).toBe(201);
    expect((await call('POST', '/v1/admin/budgets', ta, { scope: 'team', subject: 'beta', limit_usd: 1 })).status).toBe(403);
    expect((await call('POST', '/v1/admin/budgets', ta, { scope: 'organization', subject: 'globex', limit_usd: 1 })).status).toBe(403);
    const betaBudget = await admin('POST', '/v1/admin/budgets', { scope: 'team', subject: 'beta', limit_usd: 1 });
    expect((await call('PATCH', `/v1/admin/budgets/${betaBudget.body.id}`, ta, { limit_usd: 100 })).status).toBe(403);
    expect((await call('PATCH', `/v1/admin/budgets/${ownBudget.body.id}`, ta, { subject: 'dave' })).status).toBe(403);
    expect((await call('GET', '/v1/admin/budgets', ta)).body.data.map((b: Json) => b.id)).toEqual([ownBudget.body.id]);

    // Keys: its team's only (issued into alpha, listed, rotated, revoked); beta's refused.
    const key = await call('POST', '/v1/auth/tokens', ta, { user: 'alice' });
    expect(key.status).toBe(201);
    expect(key.body.team).toBe('alpha');
    expect((await call('POST', '/v1/auth/tokens', ta, { user: 'erin', team: 'beta' })).status).toBe(403);
    expect((await call('POST', '/v1/auth/tokens', ta, { user: 'erin', roles: ['admin'] })).status).toBe(403);
    expect((await call('POST', '/v1/auth/tokens', ta, { user: 'dave' })).status).toBe(403);
    const betaKey = await issue({ user: 'dave', team: 'beta' });
    expect((await call('DELETE', `/v1/auth/tokens/${betaKey.id}`, ta)).status).toBe(403);
    expect((await call('POST', `/v1/auth/tokens/${betaKey.id}/rotate`, ta)).status).toBe(403);
    const listed = await call('GET', '/v1/auth/tokens', ta);
    expect(new Set(listed.body.data.map((t: Json) => t.team))).toEqual(new Set(['alpha']));
    // Its pages hold its team's keys only (narrowed in the store's query): a page of one is full, and beta's key is no place to start from.
    const alphaIds = listed.body.data.map((t: Json) => t.id);
    expect(alphaIds.length).toBeGreaterThan(1);
    const firstPage = await call('GET', '/v1/auth/tokens?limit=1', ta);
    expect([firstPage.body.data.map((t: Json) => t.id), firstPage.body.has_more]).toEqual([[alphaIds[0]], true]);
    const nextPage = await call('GET', `/v1/auth/tokens?limit=100&after=${alphaIds[0]}`, ta);
    expect([nextPage.body.data.map((t: Json) => t.id), nextPage.body.has_more]).toEqual([alphaIds.slice(1), false]);
    const fromBeta = await call('GET', `/v1/auth/tokens?limit=1&after=${betaKey.id}`, ta);
    expect([fromBeta.status, fromBeta.body.error?.param]).toEqual([400, 'after']);
    expect((await call('POST', `/v1/auth/tokens/${key.body.id}/rotate`, ta)).status).toBe(200);
    expect((await call('DELETE', `/v1/auth/tokens/${key.body.id}`, ta)).status).toBe(200);

    // A team_admin key without a team manages nothing.
    const teamless = await issue({ user: 'floater', roles: ['team_admin'] });
    expect((await call('GET', '/v1/admin/users', teamless.token)).body.data).toEqual([]);
    expect((await call('POST', '/v1/admin/users', teamless.token, { id: 'x1' })).status).toBe(403);
  });

  it('audit: every write kept with who, before and after, no token value, filters and the list shape', async () => {
    const key = await issue({ user: 'audited', team: 'alpha' });
    const rotated = await admin('POST', `/v1/auth/tokens/${key.id}/rotate`);
    expect((await admin('DELETE', `/v1/auth/tokens/${key.id}`)).status).toBe(200);

    const tokenAudit = await admin('GET', `/v1/admin/audit?resource=token&limit=100`);
    expect(tokenAudit.status).toBe(200);
    expect(tokenAudit.body.object).toBe('list');
    const text = JSON.stringify(tokenAudit.body);
    expect(text).not.toContain(key.token);
    expect(text).not.toContain(rotated.body.token);
    expect(text).not.toContain(ADMIN);
    expect(text).not.toContain('gwt_');
    const ofKey = tokenAudit.body.data.filter((e: Json) => e.resource_id === key.id);
    expect(ofKey.map((e: Json) => e.action)).toEqual(['token.revoke', 'token.rotate', 'token.create']);
    expect(ofKey[2]).toMatchObject({
      object: 'audit.entry',
      actor: { kind: 'admin', id: 'admin', user: 'admin', role: 'admin' },
      before: null,
      after: { id: key.id, user: 'audited' },
    });
    expect(ofKey[0].before).toMatchObject({ id: key.id, revoked_at: null });
    expect(ofKey[0].after.revoked_at).toEqual(expect.any(Number));

    // Tenants' and budgets' writes, with before and after; the team_admin's by its key and role.
    const all = await admin('GET', '/v1/admin/audit?limit=100');
    const actions = new Set(all.body.data.map((e: Json) => e.action));
    for (const action of ['organization.create', 'organization.update', 'organization.delete', 'team.create', 'user.update', 'budget.create', 'budget.update', 'budget.delete']) {
      expect(actions).toContain(action);
    }
    const orgUpdate = all.body.data.find((e: Json) => e.action === 'organization.update');
    expect(orgUpdate.before.name).toBe('Initech');
    expect(orgUpdate.after.name).toBe('Initech Ltd');
    const byLead = await admin('GET', '/v1/admin/audit?actor=lead-a&resource=user');
    expect(byLead.body.data.length).toBeGreaterThan(0);
    expect(byLead.body.data.every((e: Json) => e.actor.user === 'lead-a' && e.actor.role === 'team_admin' && e.actor.kind === 'token')).toBe(true);
    const allText = JSON.stringify(all.body);
    for (const value of Object.values(keys)) expect(allText).not.toContain(value);

    // Newest first, paged with after, and the time filters.
    const first = await admin('GET', '/v1/admin/audit?limit=2');
    expect(first.body.has_more).toBe(true);
    const next = await admin('GET', `/v1/admin/audit?limit=2&after=${first.body.data[1].id}`);
    expect(next.body.data[0].id < first.body.data[1].id).toBe(true);
    const future = Math.floor(Date.now() / 1000) + 3600;
    expect((await admin('GET', `/v1/admin/audit?from=${future}`)).body.data).toEqual([]);
    expect((await admin('GET', `/v1/admin/audit?to=${new Date(0).toISOString()}`)).body.data).toEqual([]);
    expect((await admin('GET', '/v1/admin/audit?from=yesterday')).status).toBe(400);
  });
});
