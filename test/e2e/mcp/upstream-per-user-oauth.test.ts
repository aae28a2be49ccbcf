import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';
import { HttpToolServer } from '../../helpers/http-tool-server.js';
import { consentAndConnect, FakeToolOAuth } from '../../helpers/fake-tool-oauth.js';
import { connectClient, rawPost, textOf } from '../../helpers/mcp.js';
import { mcpServerProblems } from '../../../src/features/mcp/upstream/server-config.js';

const ADMIN = 'admin-token-of-the-per-user-oauth-tests-0123';
const CLIENT = { id: 'gateway-at-tools', secret: 'client-secret-of-the-gateway-at-tools-0123' };
const SECRETS_KEY = 'a'.repeat(64);
const NOT_CONNECTED = -32007;

describe('each user’s own OAuth connection to a tool server: auth.upstream per_user_oauth', () => {
  let tools: HttpToolServer;
  let as: FakeToolOAuth;
  let gw: TestGateway;
  const keys = { alice: '', bob: '', carol: '', dave: '', erin: '' };

  const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
  const call = (key: string, id: number, path = '/mcp', name = 'tools__echo') =>
    rawPost(`${gw.url}${path}`, { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: { text: `call ${id}` } } }, bearer(key));

  async function issue(user: string): Promise<string> {
    const res = await fetch(`${gw.url}/v1/auth/tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ user }),
    });
    expect(res.status).toBe(201);
    return ((await res.json()) as { token: string }).token;
  }

  /** The connect link the gateway gives `key` (the not-connected error of a call). */
  async function connectLink(key: string): Promise<string> {
    const answer = await call(key, 1);
    expect(answer.json.error.code).toBe(NOT_CONNECTED);
    return answer.json.error.data.connect_url as string;
  }

  /** The browser: opens the link signed in at the tool server's AS as `upstreamUser`, follows its redirect to the gateway's callback. */
  async function browse(link: string, upstreamUser: string): Promise<{ callback: string; status: number; body: string }> {
    const atAs = await fetch(link, { redirect: 'manual', headers: { cookie: `upstream-user=${upstreamUser}` } });
    expect(atAs.status).toBe(302);
    const callback = atAs.headers.get('location')!;
    const back = await consentAndConnect(callback);
    return { callback, status: back.status, body: back.body };
  }

  beforeAll(async () => {
    // carol's first access token is about to expire (30 s: refreshed before use); refreshed tokens last an hour. erin's always expire soon.
    as = await new FakeToolOAuth(CLIENT, (user, grant) => ((user === 'carol' && grant === 'authorization_code') || user === 'erin' ? 30 : 3600)).start();
    tools = await new HttpToolServer().start();
    gw = await startGateway({
      auth: { enabled: true, type: 'bearer', adminToken: ADMIN },
      secrets: { key: SECRETS_KEY },
      mcpServers: {
        tools: {
          url: tools.url,
          auth: {
            upstream: 'per_user_oauth',
            authorizationEndpoint: as.authorizationEndpoint,
            tokenEndpoint: as.tokenEndpoint,
            clientId: CLIENT.id,
            clientSecret: CLIENT.secret,
            scopes: ['tools'],
          },
        },
      },
    });
    for (const user of ['alice', 'bob', 'carol', 'dave', 'erin'] as const) keys[user] = await issue(`${user}@example.com`);
  });
  afterAll(async () => {
    await gw?.close();
    await tools?.stop();
    await as?.stop();
  });

  it('config: per_user_oauth needs a client id, both endpoints or neither, and secrets.key (a client secret is optional)', () => {
    const server = (auth: Record<string, unknown>, secrets?: Record<string, unknown>) =>
      mcpServerProblems({ ...(secrets ? { secrets } : {}), mcpServers: { t: { url: 'https://tools.example/mcp', auth } } } as never);
    expect(server({ upstream: 'per_user_oauth' }, { key: SECRETS_KEY })).toEqual(['mcpServers.t.auth.clientId: required with upstream per_user_oauth']);
    // The endpoints are discovered when neither is given; one alone is a mistake.
    expect(server({ upstream: 'per_user_oauth', clientId: 'c' }, { key: SECRETS_KEY })).toEqual([]);
    expect(server({ upstream: 'per_user_oauth', clientId: 'c', tokenEndpoint: 'https://as.example/token' }, { key: SECRETS_KEY })).toEqual([
      "mcpServers.t.auth: give both authorizationEndpoint and tokenEndpoint, or neither (discovered from the server's RFC 9728 metadata)",
    ]);
    const complete = { upstream: 'per_user_oauth', authorizationEndpoint: 'https://as.example/authorize', tokenEndpoint: 'https://as.example/token', clientId: 'c' };
    expect(server(complete, { key: SECRETS_KEY })).toEqual([]);
    expect(server(complete)).toEqual(['mcpServers.t.auth.upstream: per_user_oauth keeps each user’s tokens sealed in the store; set secrets.key'.replace('’', "'")]);
    expect(server({ ...complete, authorizationEndpoint: 'http://as.example/authorize' }, { key: SECRETS_KEY })).toEqual([
      'mcpServers.t.auth.authorizationEndpoint: must be an https:// address (http:// only on loopback)',
    ]);
  });

  it('a caller without a connection gets the not-connected error with a link to connect: PKCE S256, a state, and the gateway’s own callback', async () => {
    const links: string[] = [];
    for (const path of ['/mcp', '/mcp/tools']) {
      const answer = await call(keys.dave, 7, path, path === '/mcp' ? 'tools__echo' : 'echo');
      links.push(answer.json.error.data.connect_url);
      expect(answer.status).toBe(200);
      expect(answer.json.id).toBe(7);
      expect(answer.json.error.code).toBe(NOT_CONNECTED);
      expect(answer.json.error.message).toMatch(/connect_url/);
      const link = new URL(answer.json.error.data.connect_url);
      expect(answer.json.error.data.server).toBe('tools');
      expect(`${link.origin}${link.pathname}`).toBe(as.authorizationEndpoint);
      expect(link.searchParams.get('redirect_uri')).toBe(`${gw.url}/oauth/upstream/callback`);
      expect(link.searchParams.get('code_challenge_method')).toBe('S256');
      expect(link.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(link.searchParams.get('state')).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(link.searchParams.get('client_id')).toBe(CLIENT.id);
      expect(link.searchParams.get('scope')).toBe('tools');
    }
    // The same unused link is given again for a while (a list asks too): one state written, not one per request.
    expect(links[1]).toBe(links[0]);
    // On /mcp the server's tools are absent from the list until the caller connects, and a call answers the same error.
    const lean = await rawPost(`${gw.url}/mcp`, { jsonrpc: '2.0', id: 8, method: 'tools/list' }, bearer(keys.dave));
    expect(lean.json.result.tools.map((t: { name: string }) => t.name)).not.toContain('tools__echo');
    const session = await connectClient(`${gw.url}/mcp`, bearer(keys.dave));
    try {
      expect((await session.listTools()).tools.map((t) => t.name)).not.toContain('tools__echo');
      const failed = await session.callTool({ name: 'tools__echo', arguments: { text: 'x' } }).then(
        () => undefined,
        (err: { code?: number; data?: { connect_url?: string } }) => err,
      );
      expect(failed?.code).toBe(NOT_CONNECTED);
      expect(failed?.data?.connect_url?.startsWith(as.authorizationEndpoint)).toBe(true);
    } finally {
      await session.close();
    }
    // Opening a session on /mcp/<server> is refused the same way (the session would carry the caller's token).
    const client = connectClient(`${gw.url}/mcp/tools`, bearer(keys.dave));
    await expect(client).rejects.toThrow(/connect_url|Not connected/);
    expect(tools.calls.filter((c) => c.headers.authorization)).toEqual([]);
  });

  it('two users connect through the browser flow; each call carries that user’s own upstream token, never the other’s, never a gateway token', async () => {
    for (const user of ['alice', 'bob'] as const) {
      const done = await browse(await connectLink(keys[user]), user);
      expect(done.status).toBe(200);
      expect(done.body).toContain('Connected');
    }
    const before = tools.calls.length;
    expect((await call(keys.alice, 2)).json.result.content[0].text).toBe('echo: call 2');
    expect((await call(keys.bob, 3)).json.result.content[0].text).toBe('echo: call 3');
    const relayed = await connectClient(`${gw.url}/mcp/tools`, bearer(keys.bob));
    expect(textOf(await relayed.callTool({ name: 'echo', arguments: { text: 'relayed' } }))).toBe('echo: relayed');
    await relayed.close();
    const session = await connectClient(`${gw.url}/mcp`, bearer(keys.alice));
    expect((await session.listTools()).tools.map((t) => t.name)).toContain('tools__echo');
    expect(textOf(await session.callTool({ name: 'tools__echo', arguments: { text: 'session' } }))).toBe('echo: session');
    await session.close();
    const seen = tools.calls.slice(before).map((c) => c.headers.authorization);
    const [aliceToken] = as.issued.get('alice')!;
    const [bobToken] = as.issued.get('bob')!;
    expect(seen).toEqual([`Bearer ${aliceToken}`, `Bearer ${bobToken}`, `Bearer ${bobToken}`, `Bearer ${aliceToken}`]);
    const everyHeader = JSON.stringify(tools.requests.map((r) => r.headers));
    for (const key of Object.values(keys)) expect(everyHeader).not.toContain(key);
    expect(everyHeader).not.toContain(ADMIN);
    // The code was traded with the gateway's client credentials and a verifier.
    expect(as.seen.filter((s) => s.grant === 'authorization_code').map((s) => s.user)).toEqual(['alice', 'bob']);
  });

  it('a connect link is single use: the callback replayed is refused in the contract’s shape, and an unknown state too', async () => {
    const done = await browse(await connectLink(keys.dave), 'dave');
    expect(done.status).toBe(200);
    const replay = await fetch(done.callback, { redirect: 'manual' });
    expect(replay.status).toBe(400);
    const body = (await replay.json()) as { error: { code: string; param: string; message: string } };
    expect(body.error).toMatchObject({ code: 'missing_required_parameter', param: 'state' });
    expect(body.error.message).toMatch(/already used|expired|unknown/);
    const forged = await fetch(`${gw.url}/oauth/upstream/callback?code=abc&state=${'x'.repeat(43)}`, { redirect: 'manual' });
    expect(forged.status).toBe(400);
    const missing = await fetch(`${gw.url}/oauth/upstream/callback?code=abc`, { redirect: 'manual' });
    expect(missing.status).toBe(400);
    // The state was bound to dave: his call now works with his own token.
    const answer = await call(keys.dave, 4);
    expect(answer.json.result.content[0].text).toBe('echo: call 4');
    expect(tools.calls.at(-1)!.headers.authorization).toBe(`Bearer ${as.issued.get('dave')![0]}`);
  });

  it('the callback first shows whose gateway account the link was made for; Cancel connects nothing and uses the link up', async () => {
    const frank = await issue('frank@example.com');
    const link = await connectLink(frank);
    const atAs = await fetch(link, { redirect: 'manual', headers: { cookie: 'upstream-user=mallory-victim' } });
    const callback = atAs.headers.get('location')!;
    // Someone sent frank's link: the page names frank's gateway account before anything is kept.
    const cancelled = await consentAndConnect(callback, 'cancel');
    expect(cancelled.page).toContain('frank@example.com');
    expect(cancelled.page).toContain('<form method="post" action="/oauth/upstream/callback">');
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toContain('Nothing was connected');
    // The code was never traded, frank holds no connection, and the link is used up.
    expect(as.seen.filter((s) => s.user === 'mallory-victim')).toEqual([]);
    expect((await call(frank, 9)).json.error.code).toBe(NOT_CONNECTED);
    expect((await consentAndConnect(callback)).status).toBe(400);
    // A POST without the form's content type is refused in the contract's shape.
    const bad = await fetch(`${gw.url}/oauth/upstream/callback`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { param: string } }).error.param).toBe('body');
  });

  it('a token about to expire is refreshed before the call (concurrent calls share one refresh); the rotated refresh token is kept', async () => {
    await browse(await connectLink(keys.carol), 'carol');
    const [first] = as.issued.get('carol')!;
    const refreshesBefore = as.seen.filter((s) => s.grant === 'refresh_token').length;
    const answers = await Promise.all([call(keys.carol, 5), call(keys.carol, 6)]);
    expect(answers.map((a) => a.json.result.content[0].text)).toEqual(['echo: call 5', 'echo: call 6']);
    const refreshes = as.seen.filter((s) => s.grant === 'refresh_token').slice(refreshesBefore);
    expect(refreshes).toHaveLength(1);
    expect(refreshes[0]!.user).toBe('carol');
    const refreshed = as.issued.get('carol')![1]!;
    expect(refreshed).not.toBe(first);
    expect(tools.calls.slice(-2).map((c) => c.headers.authorization)).toEqual([`Bearer ${refreshed}`, `Bearer ${refreshed}`]);
    // The refreshed token lasts an hour: the next call uses it as it is.
    await call(keys.carol, 7);
    expect(as.seen.filter((s) => s.grant === 'refresh_token').length).toBe(refreshesBefore + 1);
    expect(tools.calls.at(-1)!.headers.authorization).toBe(`Bearer ${refreshed}`);
  });

  it('tokens are sealed in the store: no access or refresh token appears in the database files', () => {
    const files = readdirSync(gw.dataDir).filter((f) => f.startsWith('gateway.db'));
    expect(files).toContain('gateway.db');
    const db = new Database(join(gw.dataDir, 'gateway.db'), { readonly: true, fileMustExist: true });
    const rows = db.prepare('SELECT owner, server, tokens FROM gateway_mcp_connections ORDER BY owner').all() as { owner: string; server: string; tokens: string }[];
    db.close();
    expect(rows.length).toBe(4);
    for (const row of rows) expect(row.tokens).toMatch(/^v1:[A-Za-z0-9+/=]+$/);
    const raw = Buffer.concat(files.map((f) => readFileSync(join(gw.dataDir, f))));
    const secrets = [...[...as.issued.values()].flat(), ...as.liveRefreshTokens()];
    expect(secrets.length).toBeGreaterThanOrEqual(6);
    for (const secret of secrets) {
      expect(JSON.stringify(rows)).not.toContain(secret);
      expect(raw.includes(secret)).toBe(false);
      // Nor in the gateway's log.
      expect(gw.logs.text).not.toContain(secret);
    }
    expect(gw.logs.text).toContain('a user connected a tool server');
  });

  it('a refresh the tool server’s authorization server refuses (grant revoked) removes the connection: the call asks to connect again', async () => {
    await browse(await connectLink(keys.erin), 'erin');
    expect((await call(keys.erin, 10)).json.result.content[0].text).toBe('echo: call 10');
    as.revoke('erin');
    const refused = await call(keys.erin, 11);
    expect(refused.json.error.code).toBe(NOT_CONNECTED);
    expect(refused.json.error.data.connect_url.startsWith(as.authorizationEndpoint)).toBe(true);
    expect(as.seen.at(-1)).toMatchObject({ grant: 'refresh_token' });
    const own = (await (await fetch(`${gw.url}/v1/mcp/connections`, { headers: bearer(keys.erin) })).json()) as { data: unknown[] };
    expect(own.data).toEqual([]);
  });

  it('a user lists and removes their own connection; the admin lists everyone’s without a token', async () => {
    const own = await fetch(`${gw.url}/v1/mcp/connections`, { headers: bearer(keys.bob) });
    expect(own.status).toBe(200);
    const ownBody = (await own.json()) as { data: Array<Record<string, unknown>> };
    expect(ownBody.data).toEqual([expect.objectContaining({ object: 'mcp.connection', server: 'tools', scope: 'tools', refreshable: true })]);
    expect(ownBody.data[0]).not.toHaveProperty('owner');

    const admin = await fetch(`${gw.url}/v1/admin/mcp/connections`, { headers: bearer(ADMIN) });
    expect(admin.status).toBe(200);
    const adminText = await admin.text();
    const adminBody = JSON.parse(adminText) as { data: Array<{ owner: string; server: string }> };
    expect(adminBody.data).toHaveLength(4);
    for (const secret of [...[...as.issued.values()].flat(), ...as.liveRefreshTokens()]) expect(adminText).not.toContain(secret);
    expect((await fetch(`${gw.url}/v1/admin/mcp/connections`, { headers: bearer(keys.bob) })).status).toBe(403);

    const link = await fetch(`${gw.url}/v1/mcp/connections/tools`, { method: 'POST', headers: bearer(keys.bob) });
    expect(link.status).toBe(200);
    expect(((await link.json()) as { connect_url: string }).connect_url.startsWith(as.authorizationEndpoint)).toBe(true);

    const gone = await fetch(`${gw.url}/v1/mcp/connections/tools`, { method: 'DELETE', headers: bearer(keys.bob) });
    expect(gone.status).toBe(200);
    expect((await call(keys.bob, 8)).json.error.code).toBe(NOT_CONNECTED);
    expect((await call(keys.alice, 9)).json.result.content[0].text).toBe('echo: call 9');
    const again = await fetch(`${gw.url}/v1/mcp/connections/tools`, { method: 'DELETE', headers: bearer(keys.bob) });
    expect(again.status).toBe(404);
    expect(((await again.json()) as { error: { code: string } }).error.code).toBe('not_found');
    const unknown = await fetch(`${gw.url}/v1/mcp/connections/nope`, { method: 'DELETE', headers: bearer(keys.bob) });
    expect(unknown.status).toBe(404);
    expect((await fetch(`${gw.url}/v1/mcp/connections`)).status).toBe(401);
  });
});
