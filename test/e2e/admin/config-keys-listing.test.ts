// GET /v1/auth/tokens lists the keys of the config file (auth.apiKeys, source: file) and the keys
// issued through the API (source: api) in one list: the file's first, in their order, then the
// issued ones; pages, search and a team_admin's team apply to both. Before, the file's keys were
// missing from it. Through the HTTP API of a gateway in-process.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueKey } from '../../helpers/gateway-keys.js';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';

const ADMIN = 'admin-token-config-keys-listing-0123456789';
/** The values of auth.apiKeys[0..2]: none may appear in a listing, nor any hash of them. */
const FILE_KEYS = ['cfg-listing-alpha-zero-0123456789abcdef', 'cfg-listing-beta-one-0123456789abcdef', 'cfg-listing-alpha-two-0123456789abcdef'];
const FILE_IDS = ['config-key-0', 'config-key-1', 'config-key-2'];
const EXPIRES = '2099-01-01T00:00:00Z';

type Json = any;

describe('the key list holds the keys of the config file and the issued ones', () => {
  let gw: TestGateway;
  let lead: { id: string; token: string };
  /** The issued keys' values (never listed either). */
  const issuedValues: string[] = [];
  const issuedIds: string[] = [];

  const call = async (method: string, path: string, credential = ADMIN, body?: unknown): Promise<{ status: number; text: string; body: Json }> => {
    const headers: Record<string, string> = { authorization: `Bearer ${credential}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${gw.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, text, body: text ? JSON.parse(text) : undefined };
  };
  const list = async (query = '', credential = ADMIN): Promise<Json> => {
    const res = await call('GET', `/v1/auth/tokens${query}`, credential);
    expect(res.status, res.text).toBe(200);
    expectNoSecret(res.text);
    return res.body;
  };
  /** Every page of `limit` keys, following `after`, joined; each page full while has_more. */
  const walk = async (limit: number, extra = '', credential = ADMIN): Promise<string[]> => {
    const ids: string[] = [];
    let after: string | undefined;
    for (let pages = 0; pages < 50; pages++) {
      const page = await list(`?limit=${limit}${after ? `&after=${encodeURIComponent(after)}` : ''}${extra}`, credential);
      ids.push(...page.data.map((t: Json) => t.id));
      if (!page.has_more) {
        expect(page.data.length).toBeLessThanOrEqual(limit);
        return ids;
      }
      expect(page.data.length).toBe(limit);
      after = page.data.at(-1).id;
    }
    throw new Error('too many pages');
  };
  const expectNoSecret = (text: string) => {
    for (const value of [...FILE_KEYS, ...issuedValues]) {
      const digest = createHash('sha256').update(value).digest();
      for (const shown of [value, value.slice(-8), digest.toString('hex'), digest.toString('base64'), digest.toString('base64url')]) expect(text).not.toContain(shown);
    }
  };

  beforeAll(async () => {
    gw = await startGateway({
      logging: { level: 'warn' },
      auth: {
        adminToken: ADMIN,
        apiKeys: [
          {
            key: FILE_KEYS[0],
            user: 'cfg-file-zero@alpha',
            email: 'zero@alpha.example',
            name: 'Deploy Bot',
            team: 'alpha',
            organization: 'acme',
            scopes: ['mcp:read'],
            permissions: { servers: ['docs'] },
            expiresAt: EXPIRES,
          },
          { key: FILE_KEYS[1], user: 'cfg-file-one@beta', team: 'beta' },
          { key: FILE_KEYS[2], user: 'cfg-file-two@alpha', team: 'alpha', roles: ['viewer'] },
        ],
      },
      tenants: { organizations: { acme: {} }, teams: { alpha: { organization: 'acme' }, beta: { organization: 'acme' } } },
    });
    lead = await issueKey(gw.url, ADMIN, { user: 'lead@alpha', team: 'alpha', roles: ['team_admin'] });
    issuedValues.push(lead.token);
    issuedIds.push(lead.id);
    for (const body of [{ user: 'dev@alpha', team: 'alpha' }, { user: 'dev@beta', team: 'beta' }, { user: 'solo@example.com' }]) {
      const key = await issueKey(gw.url, ADMIN, body);
      issuedValues.push(key.token);
      issuedIds.push(key.id);
    }
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('lists both kinds with their source, the file keys first, and no key value or hash', async () => {
    const all = await list();
    expect(all).toMatchObject({ object: 'list', has_more: false });
    const ids = all.data.map((t: Json) => t.id);
    expect(ids.slice(0, 3)).toEqual(FILE_IDS);
    expect(new Set(ids.slice(3))).toEqual(new Set(issuedIds));
    expect(ids).toHaveLength(7);
    for (const key of all.data) {
      expect(key.source).toBe(FILE_IDS.includes(key.id) ? 'file' : 'api');
      expect(key.object).toBe('auth.token');
      expect(key).not.toHaveProperty('token');
    }
    // A file key has an issued key's shape: what the file says, never the value (nor its last characters).
    expect(all.data[0]).toEqual({
      id: 'config-key-0',
      object: 'auth.token',
      source: 'file',
      user: 'cfg-file-zero@alpha',
      team: 'alpha',
      email: 'zero@alpha.example',
      name: 'Deploy Bot',
      organization: 'acme',
      scopes: ['mcp:read'],
      permissions: { servers: ['docs'] },
      mcp: { servers: ['docs'] },
      created_at: null,
      expires_at: Date.parse(EXPIRES) / 1000,
      revoked_at: null,
      blocked: false,
    });
    expect(all.data[1]).toMatchObject({ id: 'config-key-1', source: 'file', user: 'cfg-file-one@beta', team: 'beta', permissions: null, expires_at: null });
    expect(all.data[2]).toMatchObject({ id: 'config-key-2', source: 'file', roles: ['viewer'], team: 'alpha' });
    // An issued key is source api, in its answer on create and in the list.
    expect(all.data.find((t: Json) => t.id === lead.id)).toMatchObject({ source: 'api', user: 'lead@alpha', team: 'alpha', revoked_at: null });
  });

  it('pages with limit 1 to 3 walk every key exactly once, the file keys first, in either order', async () => {
    const desc = (await list()).data.map((t: Json) => t.id);
    const asc = (await list('?order=asc')).data.map((t: Json) => t.id);
    // The file's keys keep their order; the issued ones follow in `order`.
    expect(asc).toEqual([...FILE_IDS, ...desc.slice(3).reverse()]);
    for (const limit of [1, 2, 3]) {
      expect(await walk(limit), `limit ${limit}`).toEqual(desc);
      expect(await walk(limit, '&order=asc'), `limit ${limit} asc`).toEqual(asc);
    }
    // A page full of file keys says more follow exactly when some do.
    expect(await list('?limit=3')).toMatchObject({ has_more: true });
    expect((await list('?limit=3&search=cfg-file')).has_more).toBe(false);
    expect((await list('?limit=2&search=cfg-file')).has_more).toBe(true);
    expect((await list('?limit=2&after=config-key-0&search=cfg-file')).has_more).toBe(false);
    // After the last file key: the store's first keys.
    const next = await list('?limit=2&after=config-key-2');
    expect(next.data.map((t: Json) => t.id)).toEqual(desc.slice(3, 5));
    expect(next.has_more).toBe(true);
    // An id in neither list is still a 400 naming after.
    for (const after of ['config-key-9', 'tok_unknown']) {
      const res = await call('GET', `/v1/auth/tokens?limit=2&after=${after}`);
      expect(res.status).toBe(400);
      expect(res.body.error.param).toBe('after');
    }
  });

  it('search finds a file key by its id, name, user, email, team or organization, case-insensitively', async () => {
    const found = async (search: string) => (await list(`?search=${encodeURIComponent(search)}`)).data.map((t: Json) => t.id);
    expect(await found('Deploy BOT')).toEqual(['config-key-0']);
    expect(await found('CONFIG-KEY-1')).toEqual(['config-key-1']);
    expect(await found('zero@ALPHA.example')).toEqual(['config-key-0']);
    expect(await found('cfg-file')).toEqual(FILE_IDS);
    expect(await found('dev@beta')).toEqual([issuedIds[2]]);
    const beta = await found('beta');
    expect(beta[0]).toBe('config-key-1');
    expect(new Set(beta)).toEqual(new Set(['config-key-1', issuedIds[2]]));
    expect(await walk(1, '&search=beta')).toEqual(beta);
  });

  it("a team_admin lists its team's keys only, the file's among them", async () => {
    const listed = await list('', lead.token);
    const ids = listed.data.map((t: Json) => t.id);
    expect(ids.slice(0, 2)).toEqual(['config-key-0', 'config-key-2']);
    expect(new Set(ids.slice(2))).toEqual(new Set([issuedIds[0], issuedIds[1]]));
    expect(new Set(listed.data.map((t: Json) => t.team))).toEqual(new Set(['alpha']));
    for (const limit of [1, 2, 3]) expect(await walk(limit, '', lead.token)).toEqual(ids);
    // Another team's file key is not in its list: no page starts after it.
    const res = await call('GET', '/v1/auth/tokens?limit=1&after=config-key-1', lead.token);
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe('after');
  });

  it('a write to a file key is still the 409 naming where it is set', async () => {
    const writes: [string, string, unknown?][] = [
      ['PATCH', '/v1/auth/tokens/config-key-0', { name: 'renamed' }],
      ['DELETE', '/v1/auth/tokens/config-key-1'],
      ['POST', '/v1/auth/tokens/config-key-2/rotate', {}],
      ['POST', '/v1/auth/tokens/config-key-0/block'],
      ['POST', '/v1/auth/tokens/config-key-0/unblock'],
    ];
    for (const [method, path, body] of writes) {
      const res = await call(method, path, ADMIN, body);
      expect(res.status, `${method} ${path}`).toBe(409);
      expect(res.body.error.message).toMatch(/auth\.apiKeys\[\d\]/);
      expect(res.body.error.message).toMatch(/config file/);
    }
    // Its own team's file key: the same 409 for a team_admin.
    expect((await call('PATCH', '/v1/auth/tokens/config-key-2', lead.token, { name: 'x' })).status).toBe(409);
    // Nothing changed.
    const after = (await list('?search=config-key')).data;
    expect(after.map((t: Json) => [t.id, t.name ?? null, t.blocked, t.revoked_at])).toEqual([
      ['config-key-0', 'Deploy Bot', false, null],
      ['config-key-1', null, false, null],
      ['config-key-2', null, false, null],
    ]);
  });
});
