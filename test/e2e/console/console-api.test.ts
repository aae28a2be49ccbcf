import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_CSP } from '../../../src/features/console/security-headers.js';
import { FakeUpstream } from '../../helpers/fake-upstream.js';
import { answers, CHAT, chatBody, post, UPSTREAM_CHAT, upstreamError } from '../../helpers/routing-harness.js';
import { buildConsole } from '../../helpers/console-build.js';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';
import { dropSharedState, sharedStoreConfig } from '../../helpers/shared-stores.js';

const ADMIN = 'admin-token-console-0001-0123456789abcdef';
const VIEWER_KEY = 'cfg-console-viewer-key-0002-0123456789abcdef';
const PLAIN_KEY = 'cfg-console-plain-key-0003-0123456789abcdef';
const TEAM_ADMIN_KEY = 'cfg-console-teamadm-key-0004-0123456789abcdef';

interface Session {
  cookie: string;
  csrf: string;
  body: any;
}

async function login(url: string, token: string): Promise<{ status: number; session?: Session; setCookie: string[]; body: any }> {
  const res = await request(`${url}/v1/admin/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token }) });
  const body: any = await res.body.json();
  const raw = res.headers['set-cookie'];
  const setCookie = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
  if (res.statusCode !== 201) return { status: res.statusCode, setCookie, body };
  const cookie = setCookie.map((c) => c.split(';')[0]).join('; ');
  return { status: res.statusCode, setCookie, body, session: { cookie, csrf: body.csrf_token, body } };
}

async function call(url: string, method: string, path: string, session: Session | undefined, opts: { csrf?: string | null; body?: unknown } = {}) {
  const headers: Record<string, string> = {};
  if (session) headers.cookie = session.cookie;
  const csrf = opts.csrf === undefined ? session?.csrf : opts.csrf;
  if (csrf) headers['x-csrf-token'] = csrf;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const res = await request(`${url}${path}`, { method: method as 'GET', headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
  const text = await res.body.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.statusCode, headers: res.headers, text, json };
}

function start(ui: Record<string, unknown>, upstream?: FakeUpstream): Promise<TestGateway> {
  return startGateway({
    logging: { level: 'warn' },
    ui,
    ...(upstream ? { providers: { openai: { baseUrl: `${upstream.url}/v1` } } } : {}),
    auth: {
      adminToken: ADMIN,
      apiKeys: [
        { key: VIEWER_KEY, user: 'vera@example.com', roles: ['viewer'] },
        { key: PLAIN_KEY, user: 'paul@example.com', team: 'search' },
        { key: TEAM_ADMIN_KEY, user: 'tess@example.com', team: 'ads', roles: ['team_admin'] },
      ],
    },
    pricing: { unpriced: 'allow' },
  });
}

describe('admin API sessions (the console login)', () => {
  let gw: TestGateway;
  let upstream: FakeUpstream;
  beforeAll(async () => {
    buildConsole();
    upstream = await new FakeUpstream().start();
    upstream.on(UPSTREAM_CHAT, answers('hello from upstream'));
    gw = await start({ enabled: true }, upstream);
  });
  afterAll(async () => {
    await gw?.close();
    await upstream?.stop();
  });

  it('trades the admin token for an HttpOnly SameSite=Strict cookie and a CSRF token, and never answers the token', async () => {
    const { status, setCookie, body, session } = await login(gw.url, ADMIN);
    expect(status).toBe(201);
    const sessionCookie = setCookie.find((c) => c.startsWith('gw_admin_session='))!;
    expect(sessionCookie).toMatch(/HttpOnly/);
    expect(sessionCookie).toMatch(/SameSite=Strict/);
    expect(sessionCookie).toMatch(/Max-Age=28800/);
    expect(sessionCookie).not.toMatch(/Secure/); // plain HTTP on loopback
    expect(setCookie.find((c) => c.startsWith('gw_csrf='))).toContain(`gw_csrf=${body.csrf_token}`);
    expect(body).toMatchObject({ object: 'admin.session', role: 'admin', credential: 'admin_token', read_only: false });
    expect(JSON.stringify(body)).not.toContain(ADMIN);
    expect(setCookie.join(';')).not.toContain(ADMIN);
    const me = await call(gw.url, 'GET', '/v1/admin/session', session);
    expect(me.status).toBe(200);
    expect(me.json.role).toBe('admin');
  });

  it('refuses a wrong token (401), a key without an admin role (403) and a bad body (400)', async () => {
    expect((await login(gw.url, 'not-the-admin-token')).status).toBe(401);
    expect((await login(gw.url, PLAIN_KEY)).status).toBe(403);
    const bad = await request(`${gw.url}/v1/admin/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"token": 5}' });
    expect(bad.statusCode).toBe(400);
    expect(((await bad.body.json()) as any).error.param).toBe('token');
    // A cross-site form cannot send JSON: a text/plain body shaped like JSON is refused.
    const form = await request(`${gw.url}/v1/admin/session`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: JSON.stringify({ token: ADMIN }) });
    expect(form.statusCode).toBe(400);
    expect(form.headers['set-cookie']).toBeUndefined();
    expect(((await form.body.json()) as any).error.param).toBe('content-type');
  });

  it('lets the cookie call the admin API; a write without the CSRF header or with a wrong one is 403', async () => {
    const { session } = await login(gw.url, ADMIN);
    const list = await call(gw.url, 'GET', '/v1/auth/tokens', session!);
    expect(list.status).toBe(200);
    const noCsrf = await call(gw.url, 'POST', '/v1/auth/tokens', session!, { csrf: null, body: { user: 'x@example.com' } });
    expect(noCsrf.status).toBe(403);
    expect(noCsrf.json.error.message).toMatch(/x-csrf-token/);
    const wrong = await call(gw.url, 'POST', '/v1/auth/tokens', session!, { csrf: 'A'.repeat(session!.csrf.length), body: { user: 'x@example.com' } });
    expect(wrong.status).toBe(403);
    const ok = await call(gw.url, 'POST', '/v1/auth/tokens', session!, { body: { user: 'x@example.com' } });
    expect(ok.status).toBe(201);
    expect(ok.json.token).toMatch(/^gwt_/);
    // Lists show which value a key has by its last four characters, never the value.
    expect(ok.json.last4).toBe(ok.json.token.slice(-4));
    const listed = await call(gw.url, 'GET', '/v1/auth/tokens?search=x@example.com', session!);
    expect(listed.json.data.find((t: any) => t.id === ok.json.id)).toMatchObject({ last4: ok.json.token.slice(-4) });
    expect(listed.text).not.toContain(ok.json.token);
    const rotated = await call(gw.url, 'POST', `/v1/auth/tokens/${ok.json.id}/rotate`, session!, { body: {} });
    expect(rotated.json.last4).toBe(rotated.json.token.slice(-4));
    const after = await call(gw.url, 'GET', '/v1/auth/tokens?search=x@example.com', session!);
    expect(after.json.data.find((t: any) => t.id === ok.json.id).last4).toBe(rotated.json.token.slice(-4));
  });

  it('a forged or tampered cookie is 401', async () => {
    const { session } = await login(gw.url, ADMIN);
    const [sid, sig] = session!.cookie.split(';')[0]!.split('=')[1]!.split('.');
    expect((await call(gw.url, 'GET', '/v1/auth/tokens', session!)).status).toBe(200);
    const otherSid = { ...session!, cookie: `gw_admin_session=${sid!.slice(0, -1)}${sid!.endsWith('A') ? 'B' : 'A'}.${sig}` };
    expect((await call(gw.url, 'GET', '/v1/auth/tokens', otherSid)).status).toBe(401);
    const unsigned = { ...session!, cookie: `gw_admin_session=${sid}.` };
    expect((await call(gw.url, 'GET', '/v1/auth/tokens', unsigned)).status).toBe(401);
  });

  it('a viewer session reads but every write is refused by the API (403), CSRF token or not', async () => {
    const { status, session } = await login(gw.url, VIEWER_KEY);
    expect(status).toBe(201);
    expect(session!.body.role).toBe('viewer');
    expect((await call(gw.url, 'GET', '/v1/auth/tokens', session!)).status).toBe(200);
    expect((await call(gw.url, 'GET', '/v1/admin/teams', session!)).status).toBe(200);
    const write = await call(gw.url, 'POST', '/v1/auth/tokens', session!, { body: { user: 'x@example.com' } });
    expect(write.status).toBe(403);
    const team = await call(gw.url, 'POST', '/v1/admin/teams', session!, { body: { name: 'viewers-team' } });
    expect(team.status).toBe(403);
    // The admin-only routes (credentials, config) need the admin role; the usage report is read by a viewer too.
    expect((await call(gw.url, 'GET', '/v1/admin/config', session!)).status).toBe(403);
    expect((await call(gw.url, 'GET', '/v1/admin/credentials', session!)).status).toBe(403);
    expect((await call(gw.url, 'GET', '/v1/admin/usage', session!)).status).toBe(200);
  });

  it('a session made with an issued key ends when that key is blocked', async () => {
    const admin = (await login(gw.url, ADMIN)).session!;
    const created = await call(gw.url, 'POST', '/v1/auth/tokens', admin, { body: { user: 'ada@example.com', roles: ['admin'] } });
    expect(created.status).toBe(201);
    const { session } = await login(gw.url, created.json.token);
    expect((await call(gw.url, 'GET', '/v1/admin/session', session)).status).toBe(200);
    expect((await call(gw.url, 'POST', `/v1/auth/tokens/${created.json.id}/block`, admin)).status).toBe(200);
    expect((await call(gw.url, 'GET', '/v1/admin/session', session)).status).toBe(401);
    expect((await call(gw.url, 'GET', '/v1/auth/tokens', session)).status).toBe(401);
  });

  it('logs out with DELETE (CSRF token needed), clearing the cookie; the old cookie is refused after', async () => {
    const { session } = await login(gw.url, ADMIN);
    expect((await call(gw.url, 'DELETE', '/v1/admin/session', session!, { csrf: null })).status).toBe(403);
    const out = await call(gw.url, 'DELETE', '/v1/admin/session', session!);
    expect(out.status).toBe(204);
    expect(String(out.headers['set-cookie'])).toMatch(/gw_admin_session=;.*Max-Age=0/);
    expect((await call(gw.url, 'GET', '/v1/admin/session', session!)).status).toBe(401);
  });

  it('answers the effective config with secrets masked', async () => {
    const { session } = await login(gw.url, ADMIN);
    const res = await call(gw.url, 'GET', '/v1/admin/config', session!);
    expect(res.status).toBe(200);
    expect(res.json.config.ui).toEqual({ enabled: true });
    expect(res.text).not.toContain(ADMIN);
    expect(res.text).not.toContain(VIEWER_KEY);
    expect(res.text).toContain('[REDACTED]');
    const ui = res.json.pipelines.find((p: any) => p.name === 'ui');
    expect(ui).toMatchObject({ file: 'pipelines/ui.yaml', stages: ['normalize-error', 'console-ui'], routes: ['GET /ui', 'GET /ui/{asset}', 'GET /ui/{dir}/{asset}'] });
    expect(res.json.pipelines.find((p: any) => p.name === 'chat').routes).toContain('POST /v1/chat/completions');
  });

  it('lists recent requests and tails new ones over server-sent events', async () => {
    const { session } = await login(gw.url, ADMIN);
    const ac = new AbortController();
    const stream = await request(`${gw.url}/v1/admin/requests/stream`, { headers: { cookie: session!.cookie }, signal: ac.signal });
    expect(stream.statusCode).toBe(200);
    expect(stream.headers['content-type']).toMatch(/^text\/event-stream/);
    const answer = await post(gw.url, CHAT, chatBody(), { 'x-gateway-provider': 'openai', authorization: 'Bearer sk-caller', 'x-gateway-token': PLAIN_KEY });
    expect(answer.status).toBe(200);
    const requestId = String(answer.headers['x-gateway-request-id']);
    let text = '';
    for await (const chunk of stream.body) {
      text += chunk.toString();
      if (text.includes(requestId)) break;
    }
    ac.abort();
    const event = text.split('\n\n').find((e) => e.includes(requestId))!;
    expect(event.startsWith('event: request\n')).toBe(true);
    const data = JSON.parse(event.split('\ndata: ')[1]!);
    expect(data).toMatchObject({ object: 'admin.request', request_id: requestId, model: 'gpt-4o-mini', provider: 'openai', status: 200, user: 'paul@example.com', team: 'search' });
    expect(JSON.stringify(data)).not.toContain(PLAIN_KEY);
    const list = await call(gw.url, 'GET', '/v1/admin/requests?limit=1', session!);
    expect(list.status).toBe(200);
    expect(list.json.data[0].request_id).toBe(requestId);
    expect((await call(gw.url, 'GET', '/v1/admin/requests?limit=0', session!)).status).toBe(400);
    expect((await call(gw.url, 'GET', '/v1/admin/requests?nope=1', session!)).status).toBe(400);
  });

  it('answers one request with its upstream attempts (provider, target, status, latency, error type), no body and no key', async () => {
    const { session } = await login(gw.url, ADMIN);
    upstream.on(UPSTREAM_CHAT, upstreamError(503, 'the upstream is busy: secret-ish detail'), answers('second try'));
    const retried = await post(gw.url, CHAT, chatBody({ messages: [{ role: 'user', content: 'a prompt body never shown' }] }), {
      'x-gateway-provider': 'openai',
      authorization: 'Bearer sk-caller',
      'x-gateway-token': PLAIN_KEY,
      'x-gateway-config': JSON.stringify({ retry: { attempts: 1 } }),
    });
    upstream.on(UPSTREAM_CHAT, answers('hello from upstream'));
    expect(retried.status).toBe(200);
    const requestId = String(retried.headers['x-gateway-request-id']);
    let detail = await call(gw.url, 'GET', `/v1/admin/requests/${requestId}`, session!);
    // The ledger writes off the request path: wait for the row.
    for (let i = 0; i < 100 && detail.status === 404; i++) {
      await new Promise((r) => setTimeout(r, 50));
      detail = await call(gw.url, 'GET', `/v1/admin/requests/${requestId}`, session!);
    }
    expect(detail.status).toBe(200);
    expect(detail.json).toMatchObject({ object: 'admin.request', request_id: requestId, status: 200, provider: 'openai', user: 'paul@example.com' });
    expect(detail.json.attempts).toHaveLength(2);
    expect(detail.json.attempts[0]).toMatchObject({ provider: 'openai', status: 503 });
    expect(typeof detail.json.attempts[0].error_type).toBe('string');
    expect(detail.json.attempts[1]).toMatchObject({ provider: 'openai', status: 200, error_type: null });
    expect(detail.json.attempts.every((a: any) => typeof a.latency_ms === 'number')).toBe(true);
    expect(detail.text).not.toContain('a prompt body never shown');
    expect(detail.text).not.toContain('second try');
    expect(detail.text).not.toContain('secret-ish detail');
    expect(detail.text).not.toContain(PLAIN_KEY);
    // By its ledger row id too; an unknown id is a 404 in the contract's shape; a viewer reads it too (a role that reads everything).
    expect((await call(gw.url, 'GET', `/v1/admin/requests/${detail.json.id}`, session!)).json.request_id).toBe(requestId);
    const missing = await call(gw.url, 'GET', '/v1/admin/requests/no-such-request', session!);
    expect(missing.status).toBe(404);
    expect(missing.json.error.type).toBeDefined();
    const viewer = (await login(gw.url, VIEWER_KEY)).session!;
    expect((await call(gw.url, 'GET', `/v1/admin/requests/${requestId}`, viewer)).json.request_id).toBe(requestId);
    // A request tried once has one attempt.
    const once = await post(gw.url, CHAT, chatBody(), { 'x-gateway-provider': 'openai', authorization: 'Bearer sk-caller', 'x-gateway-token': PLAIN_KEY });
    const onceId = String(once.headers['x-gateway-request-id']);
    let single = await call(gw.url, 'GET', `/v1/admin/requests/${onceId}`, session!);
    for (let i = 0; i < 100 && single.status === 404; i++) {
      await new Promise((r) => setTimeout(r, 50));
      single = await call(gw.url, 'GET', `/v1/admin/requests/${onceId}`, session!);
    }
    expect(single.json.attempts).toEqual([expect.objectContaining({ provider: 'openai', status: 200, error_type: null })]);
  });

  it('filters the live tail on the server (team, key, model, provider)', async () => {
    const { session } = await login(gw.url, ADMIN);
    expect((await call(gw.url, 'GET', '/v1/admin/requests/stream?nope=1', session!)).status).toBe(400);
    const ac = new AbortController();
    const stream = await request(`${gw.url}/v1/admin/requests/stream?team=ads&model=gpt-4o-mini`, { headers: { cookie: session!.cookie }, signal: ac.signal });
    expect(stream.statusCode).toBe(200);
    const headers = (key: string) => ({ 'x-gateway-provider': 'openai', authorization: 'Bearer sk-caller', 'x-gateway-token': key });
    const search = await post(gw.url, CHAT, chatBody(), headers(PLAIN_KEY));
    const ads = await post(gw.url, CHAT, chatBody(), headers(TEAM_ADMIN_KEY));
    expect([search.status, ads.status]).toEqual([200, 200]);
    const adsId = String(ads.headers['x-gateway-request-id']);
    let text = '';
    for await (const chunk of stream.body) {
      text += chunk.toString();
      if (text.includes(adsId)) break;
    }
    ac.abort();
    // The ledger keeps the two in order: the search team's request would have come first.
    expect(text).not.toContain(String(search.headers['x-gateway-request-id']));
    const list = await call(gw.url, 'GET', '/v1/admin/requests?team=ads&limit=5', session!);
    expect(list.json.data.every((r: any) => r.team === 'ads')).toBe(true);
    expect(list.json.data[0].request_id).toBe(adsId);
  });

  it('paginates, sorts and searches the key list on the server', async () => {
    const { session } = await login(gw.url, ADMIN);
    for (const user of ['page-a@example.com', 'page-b@example.com', 'page-c@example.com']) {
      expect((await call(gw.url, 'POST', '/v1/auth/tokens', session!, { body: { user } })).status).toBe(201);
    }
    const all = await call(gw.url, 'GET', '/v1/auth/tokens?search=page-&order=asc', session!);
    const ids = all.json.data.map((t: any) => t.id);
    expect(ids).toHaveLength(3);
    expect(all.json.data.map((t: any) => t.created_at)).toEqual([...all.json.data.map((t: any) => t.created_at)].sort());
    const first = await call(gw.url, 'GET', '/v1/auth/tokens?search=page-&limit=2&order=asc', session!);
    expect(first.status).toBe(200);
    expect(first.json.data.map((t: any) => t.id)).toEqual(ids.slice(0, 2));
    expect(first.json.has_more).toBe(true);
    const next = await call(gw.url, 'GET', `/v1/auth/tokens?search=page-&limit=2&order=asc&after=${first.json.data[1].id}`, session!);
    expect(next.json.data.map((t: any) => t.id)).toEqual(ids.slice(2));
    expect(next.json.has_more).toBe(false);
    const desc = await call(gw.url, 'GET', '/v1/auth/tokens?search=PAGE-&limit=1&order=desc', session!);
    expect(desc.json.data.map((t: any) => t.id)).toEqual([ids[2]]);
    expect(desc.json.has_more).toBe(true);
    // search matches the user, not every key
    expect((await call(gw.url, 'GET', '/v1/auth/tokens?search=page-b@', session!)).json.data.map((t: any) => t.user)).toEqual(['page-b@example.com']);
    expect((await call(gw.url, 'GET', '/v1/auth/tokens?order=sideways', session!)).status).toBe(400);
  });

  it("a team_admin session lists and pages only its own team's keys", async () => {
    const admin = (await login(gw.url, ADMIN)).session!;
    for (const [user, team] of [
      ['ads-1@example.com', 'ads'],
      ['other-1@example.com', 'other'],
      ['ads-2@example.com', 'ads'],
    ]) {
      expect((await call(gw.url, 'POST', '/v1/auth/tokens', admin, { body: { user, team } })).status).toBe(201);
    }
    const { session } = await login(gw.url, TEAM_ADMIN_KEY);
    expect(session!.body).toMatchObject({ role: 'team_admin', team: 'ads' });
    // Keys made in the same second are ordered by id: the pages follow the whole list's order. (The
    // team's config-file keys come first in the list: the search leaves them out here.)
    const all = await call(gw.url, 'GET', '/v1/auth/tokens?order=asc&search=ads-', session!);
    expect(all.json.data.map((t: any) => t.user).sort()).toEqual(['ads-1@example.com', 'ads-2@example.com']);
    const first = await call(gw.url, 'GET', '/v1/auth/tokens?limit=1&order=asc&search=ads-', session!);
    expect(first.status).toBe(200);
    expect(first.json.data.map((t: any) => t.id)).toEqual([all.json.data[0].id]);
    expect(first.json.has_more).toBe(true);
    const next = await call(gw.url, 'GET', `/v1/auth/tokens?limit=5&order=asc&search=ads-&after=${first.json.data[0].id}`, session!);
    expect(next.json.data.map((t: any) => t.id)).toEqual([all.json.data[1].id]);
    expect(next.json.has_more).toBe(false);
  });

  it('serves the console at /ui with strict security headers, index.html for app paths', async () => {
    for (const path of ['/ui', '/ui/', '/ui/keys', '/ui/app.js']) {
      const res = await call(gw.url, 'GET', path, undefined);
      expect(res.status, path).toBe(200);
      expect(res.headers['content-security-policy']).toBe(CONSOLE_CSP);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['referrer-policy']).toBe('no-referrer');
      expect(res.headers['x-powered-by']).toBeUndefined();
    }
    expect(CONSOLE_CSP).toContain("default-src 'self'");
    expect(CONSOLE_CSP).toContain("frame-ancestors 'none'");
    expect(CONSOLE_CSP).not.toContain('unsafe-inline');
    expect((await call(gw.url, 'GET', '/ui/keys', undefined)).text).toContain('<script type="module" src="/ui/app.js">');
    expect((await call(gw.url, 'GET', '/ui/app.js', undefined)).headers['content-type']).toMatch(/javascript/);
  });
});

describe('admin sessions shared by two instances of one store', () => {
  let a: TestGateway;
  let b: TestGateway;
  beforeAll(async () => {
    a = await start({ enabled: true });
    // Another instance on the same store (as the workers of a cluster share its SQLite file).
    b = await startGateway({ logging: { level: 'warn' }, ui: { enabled: true }, auth: { adminToken: ADMIN }, pricing: { unpriced: 'allow' } }, { dataDir: a.dataDir });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('a session opened on one instance works on the other, and a logout on either ends it on both', async () => {
    const { session } = await login(a.url, ADMIN);
    expect((await call(b.url, 'GET', '/v1/admin/session', session!)).status).toBe(200);
    expect((await call(b.url, 'DELETE', '/v1/admin/session', session!)).status).toBe(204);
    expect((await call(a.url, 'GET', '/v1/admin/session', session!)).status).toBe(401);
    expect((await call(a.url, 'GET', '/v1/auth/tokens', session!)).status).toBe(401);
    expect((await call(b.url, 'GET', '/v1/auth/tokens', session!)).status).toBe(401);
  });

  it("a key revoked on one instance, or whose user loses the session's role, ends its session on the other", async () => {
    const admin = (await login(a.url, ADMIN)).session!;
    const revokedKey = await call(a.url, 'POST', '/v1/auth/tokens', admin, { body: { user: 'rita@example.com', roles: ['admin'] } });
    expect(revokedKey.status).toBe(201);
    const user = await call(a.url, 'POST', '/v1/admin/users', admin, { body: { id: 'dora@example.com', roles: ['admin'] } });
    expect(user.status).toBe(201);
    const userKey = await call(a.url, 'POST', '/v1/auth/tokens', admin, { body: { user: 'dora@example.com' } });
    expect(userKey.status).toBe(201);
    const rita = (await login(b.url, revokedKey.json.token)).session!;
    const dora = (await login(b.url, userKey.json.token)).session!;
    expect(dora.body.role).toBe('admin');
    expect((await call(a.url, 'GET', '/v1/admin/config', rita)).status).toBe(200);
    expect((await call(a.url, 'GET', '/v1/admin/config', dora)).status).toBe(200);

    expect((await call(b.url, 'DELETE', `/v1/auth/tokens/${revokedKey.json.id}`, admin)).status).toBe(200);
    expect((await call(a.url, 'GET', '/v1/admin/session', rita)).status).toBe(401);

    // The user now only reads: the admin session ends (a new login gets a viewer session).
    const patched = await call(a.url, 'PATCH', '/v1/admin/users/dora@example.com', admin, { body: { roles: ['viewer'] } });
    expect(patched.status).toBe(200);
    const ended = await call(b.url, 'GET', '/v1/admin/config', dora);
    expect(ended.status).toBe(401);
    expect(ended.json.error.message).toMatch(/log in again/);
    const again = await login(a.url, userKey.json.token);
    expect(again.body.role).toBe('viewer');
  });
});

describe('admin sessions shared by two instances on PostgreSQL', () => {
  const schema = `console_sessions_${process.pid}`;
  let a: TestGateway;
  let b: TestGateway;
  beforeAll(async () => {
    const shared = sharedStoreConfig('postgres', '', schema);
    const config = { logging: { level: 'warn' }, ui: { enabled: true }, auth: { adminToken: ADMIN }, ...shared };
    a = await startGateway(config);
    b = await startGateway(config);
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await dropSharedState('postgres', '', schema);
  });

  it('a session opened on one instance is served by the other; a logout on either ends it on both', async () => {
    const { session } = await login(a.url, ADMIN);
    expect((await call(b.url, 'GET', '/v1/auth/tokens', session!)).status).toBe(200);
    expect((await call(a.url, 'DELETE', '/v1/admin/session', session!)).status).toBe(204);
    expect((await call(b.url, 'GET', '/v1/auth/tokens', session!)).status).toBe(401);
  });
});

describe('ui.readOnly and ui.enabled', () => {
  let gw: TestGateway;
  let off: TestGateway;
  beforeAll(async () => {
    gw = await start({ enabled: true, readOnly: true });
    off = await start({});
  });
  afterAll(async () => {
    await gw?.close();
    await off?.close();
  });

  it('read-only: an admin session reads, but the API refuses its writes (403) while the bearer admin token still writes', async () => {
    const { session } = await login(gw.url, ADMIN);
    expect(session!.body.read_only).toBe(true);
    expect((await call(gw.url, 'GET', '/v1/auth/tokens', session!)).status).toBe(200);
    const write = await call(gw.url, 'POST', '/v1/auth/tokens', session!, { body: { user: 'x@example.com' } });
    expect(write.status).toBe(403);
    expect(write.json.error.message).toMatch(/read-only/);
    expect((await call(gw.url, 'POST', '/v1/admin/teams', session!, { body: { name: 'ro-team' } })).status).toBe(403);
    const bearer = await request(`${gw.url}/v1/auth/tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: '{"user":"y@example.com"}',
    });
    expect(bearer.statusCode).toBe(201);
    await bearer.body.dump();
    expect((await call(gw.url, 'DELETE', '/v1/admin/session', session!)).status).toBe(204);
  });

  it('off by default: /ui is a 404 in the contract shape', async () => {
    const res = await call(off.url, 'GET', '/ui', undefined);
    expect(res.status).toBe(404);
    expect(res.json.error).toBeDefined();
  });
});
