import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildConfig } from '../../../src/kernel/config/load-config.js';
import { createGateway, type Gateway } from '../../../src/gateway.js';
import { LogCollector, startGateway, type TestGateway } from '../../helpers/start-gateway.js';
import { HttpToolServer } from '../../helpers/http-tool-server.js';
import { connectClient, rawPost, textOf } from '../../helpers/mcp.js';
import { FormBrowser, hiddenFields, MetadataDocumentHost, pkcePair } from '../../helpers/oauth-browser.js';

const list = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
const ALICE_KEY = 'alice-key-0123456789abcdef';
const READER_KEY = 'reader-key-0123456789abcdef';
const REDIRECT = 'http://127.0.0.1:9/callback';
const ADMIN_TOKEN = 'admin-token-for-oauth-server-tests-0123456789';

interface FlowOptions {
  clientId: string;
  redirectUri?: string;
  challenge: string;
  method?: string | null;
  resource?: string;
  scope?: string;
  state?: string;
  key?: string;
}

function authorizeUrl(gw: TestGateway, o: FlowOptions): string {
  const url = new URL(`${gw.url}/oauth/authorize`);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', o.clientId);
  url.searchParams.set('redirect_uri', o.redirectUri ?? REDIRECT);
  if (o.challenge) url.searchParams.set('code_challenge', o.challenge);
  if (o.method !== null) url.searchParams.set('code_challenge_method', o.method ?? 'S256');
  if (o.resource) url.searchParams.set('resource', o.resource);
  if (o.scope) url.searchParams.set('scope', o.scope);
  url.searchParams.set('state', o.state ?? 'state-123');
  return url.href;
}

/** authorize -> login with a gateway key -> consent (approve): the redirect back to the client. */
async function approve(gw: TestGateway, o: FlowOptions, browser = new FormBrowser()): Promise<URL> {
  const login = await browser.get(authorizeUrl(gw, o));
  expect(login.status, login.text).toBe(200);
  const consent = await browser.post(`${gw.url}/oauth/login`, { ...hiddenFields(login.text), key: o.key ?? ALICE_KEY });
  expect(consent.status, consent.text).toBe(200);
  const back = await browser.post(`${gw.url}/oauth/consent`, { ...hiddenFields(consent.text), decision: 'approve' });
  expect(back.status, back.text).toBe(302);
  return new URL(back.location!);
}

async function token(gw: TestGateway, form: Record<string, string>): Promise<{ status: number; json: any; headers: Headers }> {
  const res = await fetch(`${gw.url}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form) });
  return { status: res.status, json: await res.json(), headers: res.headers };
}

describe('the gateway as OAuth 2.1 authorization server for /mcp', () => {
  let docs: MetadataDocumentHost;
  let remote: HttpToolServer;
  let gw: TestGateway;
  let clientId: string;

  beforeAll(async () => {
    docs = await new MetadataDocumentHost().start();
    docs.document = () => ({ client_name: 'Test <Client>', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' });
    remote = await new HttpToolServer().start();
    gw = await startGateway({
      auth: {
        enabled: true,
        type: 'oauth',
        apiKeys: [
          { key: ALICE_KEY, user: 'alice', email: 'alice@example.com', team: 'research' },
          { key: READER_KEY, user: 'rita', scopes: ['mcp:read'] },
        ],
        oauth: { role: 'authorization-server', allowInsecureClientMetadata: true },
      },
      mcpServers: { remote: { url: remote.url } },
    });
    clientId = `${docs.url}/client.json`;
  });
  afterAll(async () => {
    await gw?.close();
    await remote?.stop();
    await docs?.stop();
  });

  it('publishes RFC 8414 metadata, the JWKS, and names itself in the protected-resource document', async () => {
    const meta = (await (await fetch(`${gw.url}/.well-known/oauth-authorization-server`)).json()) as any;
    expect(meta).toMatchObject({
      issuer: gw.url,
      authorization_endpoint: `${gw.url}/oauth/authorize`,
      token_endpoint: `${gw.url}/oauth/token`,
      registration_endpoint: `${gw.url}/oauth/register`,
      revocation_endpoint: `${gw.url}/oauth/revoke`,
      jwks_uri: `${gw.url}/oauth/jwks`,
      code_challenge_methods_supported: ['S256'],
      client_id_metadata_document_supported: true,
      grant_types_supported: ['authorization_code', 'refresh_token'],
    });
    const prm = (await (await fetch(`${gw.url}/.well-known/oauth-protected-resource`)).json()) as any;
    expect(prm.authorization_servers).toEqual([gw.url]);
    const jwks = (await (await fetch(`${gw.url}/oauth/jwks`)).json()) as any;
    expect(jwks.keys).toHaveLength(1);
    expect(jwks.keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
    expect(jwks.keys[0].d).toBeUndefined();
  });

  it('runs the whole flow: metadata document client -> login -> consent -> code -> token -> /mcp -> refresh rotation -> reuse detection -> revoke', async () => {
    const { verifier, challenge } = pkcePair();
    const browser = new FormBrowser();
    const login = await browser.get(authorizeUrl(gw, { clientId, challenge, state: 'xyz' }));
    expect(login.status).toBe(200);
    expect(login.headers['content-type']).toMatch(/^text\/html/);
    expect(login.headers['x-frame-options']).toBe('DENY');
    expect(login.text).toContain('Test &lt;Client&gt;');
    const fields = hiddenFields(login.text);
    expect(fields.csrf).toBeTruthy();

    // A wrong key: the login page again, 401, the key not echoed.
    const wrong = await browser.post(`${gw.url}/oauth/login`, { ...fields, key: 'not-the-key-123456' });
    expect(wrong.status).toBe(401);
    expect(wrong.text).not.toContain('not-the-key-123456');

    const consent = await browser.post(`${gw.url}/oauth/login`, { ...fields, key: ALICE_KEY });
    expect(consent.status).toBe(200);
    expect(consent.text).not.toContain(ALICE_KEY);
    expect(consent.text).toContain('alice@example.com');
    expect(consent.text).toContain(`${gw.url}/mcp`);
    expect(consent.text).toContain('mcp:write');
    const back = await browser.post(`${gw.url}/oauth/consent`, { ...hiddenFields(consent.text), decision: 'approve' });
    expect(back.status).toBe(302);
    const redirect = new URL(back.location!);
    expect(`${redirect.origin}${redirect.pathname}`).toBe(REDIRECT);
    expect(redirect.searchParams.get('state')).toBe('xyz');
    expect(redirect.searchParams.get('iss')).toBe(gw.url);
    const code = redirect.searchParams.get('code')!;
    // The metadata document was fetched once (and is cached) for the authorization and both logins.
    expect(docs.hits).toBe(1);

    const first = await token(gw, { grant_type: 'authorization_code', code, code_verifier: verifier, client_id: clientId, redirect_uri: REDIRECT });
    expect(first.status, JSON.stringify(first.json)).toBe(200);
    expect(first.headers.get('cache-control')).toBe('no-store');
    expect(first.json).toMatchObject({ token_type: 'Bearer', expires_in: 600, scope: 'mcp:read mcp:write' });
    const claims = JSON.parse(Buffer.from(first.json.access_token.split('.')[1], 'base64url').toString());
    expect(claims).toMatchObject({ iss: gw.url, aud: `${gw.url}/mcp`, sub: 'alice', client_id: clientId });

    // The code is single-use.
    const replay = await token(gw, { grant_type: 'authorization_code', code, code_verifier: verifier, client_id: clientId, redirect_uri: REDIRECT });
    expect(replay.status).toBe(400);
    expect(replay.json.error).toBe('invalid_grant');

    // A replayed code revokes what it got: start again for the rest of the flow.
    const again = pkcePair();
    const code2 = (await approve(gw, { clientId, challenge: again.challenge })).searchParams.get('code')!;
    const issued = await token(gw, { grant_type: 'authorization_code', code: code2, code_verifier: again.verifier, client_id: clientId, redirect_uri: REDIRECT });
    expect(issued.status).toBe(200);

    const client = await connectClient(`${gw.url}/mcp`, { Authorization: `Bearer ${issued.json.access_token}` });
    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name)).toContain('remote__echo');
    const seen = JSON.parse(textOf(await client.callTool({ name: 'remote__whoami', arguments: {} })));
    expect(seen).toMatchObject({ email: 'alice@example.com', team: 'research' });
    await client.close();

    // Refresh: a new pair; the old refresh token is spent.
    const refreshed = await token(gw, { grant_type: 'refresh_token', refresh_token: issued.json.refresh_token, client_id: clientId });
    expect(refreshed.status).toBe(200);
    expect(refreshed.json.refresh_token).not.toBe(issued.json.refresh_token);
    expect((await rawPost(`${gw.url}/mcp`, list, { authorization: `Bearer ${refreshed.json.access_token}` })).status).toBe(200);

    // Reuse of the rotated token: refused, and the whole family (the newer tokens too) is revoked.
    const reuse = await token(gw, { grant_type: 'refresh_token', refresh_token: issued.json.refresh_token, client_id: clientId });
    expect(reuse.status).toBe(400);
    expect(reuse.json.error).toBe('invalid_grant');
    const afterReuse = await token(gw, { grant_type: 'refresh_token', refresh_token: refreshed.json.refresh_token, client_id: clientId });
    expect(afterReuse.json.error).toBe('invalid_grant');
    const dead = await rawPost(`${gw.url}/mcp`, list, { authorization: `Bearer ${refreshed.json.access_token}` });
    expect(dead.status).toBe(401);
    expect(dead.json.error.message).toMatch(/revoked/);

    // Revocation (RFC 7009) of an access token and of a refresh token.
    const fresh = pkcePair();
    const code3 = (await approve(gw, { clientId, challenge: fresh.challenge })).searchParams.get('code')!;
    const pair = (await token(gw, { grant_type: 'authorization_code', code: code3, code_verifier: fresh.verifier, client_id: clientId, redirect_uri: REDIRECT })).json;
    expect((await rawPost(`${gw.url}/mcp`, list, { authorization: `Bearer ${pair.access_token}` })).status).toBe(200);
    const revoke = (t: string) =>
      fetch(`${gw.url}/oauth/revoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token: t, client_id: clientId }),
      });
    expect((await revoke(pair.access_token)).status).toBe(200);
    expect((await rawPost(`${gw.url}/mcp`, list, { authorization: `Bearer ${pair.access_token}` })).status).toBe(401);
    expect((await revoke(pair.refresh_token)).status).toBe(200);
    expect((await token(gw, { grant_type: 'refresh_token', refresh_token: pair.refresh_token, client_id: clientId })).json.error).toBe('invalid_grant');
    expect((await revoke('gwr_unknown-token-value')).status).toBe(200);
    // No secret reached a log line.
    for (const secret of [ALICE_KEY, code, pair.refresh_token, pair.access_token]) expect(gw.logs.text).not.toContain(secret);
  });

  it('deny at the consent page goes back with error=access_denied and the state', async () => {
    const browser = new FormBrowser();
    const login = await browser.get(authorizeUrl(gw, { clientId, challenge: pkcePair().challenge, state: 'deny-me' }));
    const consent = await browser.post(`${gw.url}/oauth/login`, { ...hiddenFields(login.text), key: ALICE_KEY });
    const back = await browser.post(`${gw.url}/oauth/consent`, { ...hiddenFields(consent.text), decision: 'deny' });
    expect(back.status).toBe(302);
    const url = new URL(back.location!);
    expect(url.searchParams.get('error')).toBe('access_denied');
    expect(url.searchParams.get('state')).toBe('deny-me');
    expect(url.searchParams.get('code')).toBeNull();
  });

  it('the login form is bound to the browser (cookie) and its CSRF token', async () => {
    const browser = new FormBrowser();
    const login = await browser.get(authorizeUrl(gw, { clientId, challenge: pkcePair().challenge }));
    const fields = hiddenFields(login.text);
    const forged = await browser.post(`${gw.url}/oauth/login`, { ...fields, csrf: 'forged', key: ALICE_KEY });
    expect(forged.status).toBe(403);
    expect(JSON.parse(forged.text)).toMatchObject({ error: { type: 'permission_error' } });
    const other = new FormBrowser();
    const noCookie = await other.post(`${gw.url}/oauth/login`, { ...fields, key: ALICE_KEY });
    expect(noCookie.status).toBe(403);
  });

  it('a key with mcp:read only grants mcp:read: the token lists but cannot call', async () => {
    const { verifier, challenge } = pkcePair();
    const code = (await approve(gw, { clientId, challenge, key: READER_KEY })).searchParams.get('code')!;
    const issued = await token(gw, { grant_type: 'authorization_code', code, code_verifier: verifier, client_id: clientId, redirect_uri: REDIRECT });
    expect(issued.json.scope).toBe('mcp:read');
    const client = await connectClient(`${gw.url}/mcp`, { Authorization: `Bearer ${issued.json.access_token}` });
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    await expect(client.callTool({ name: 'remote__echo', arguments: { text: 'x' } })).rejects.toThrow(/mcp:write/);
    await client.close();
  });

  it('refuses plain or missing PKCE, a wrong verifier, and a redirect_uri that does not match', async () => {
    const browser = new FormBrowser();
    for (const [method, challenge] of [
      ['plain', pkcePair().challenge],
      [null, pkcePair().challenge],
      ['S256', ''],
    ] as const) {
      const page = await browser.get(authorizeUrl(gw, { clientId, challenge, method }));
      expect(page.status).toBe(302);
      const url = new URL(page.location!);
      expect(url.searchParams.get('error')).toBe('invalid_request');
      expect(url.searchParams.get('state')).toBe('state-123');
    }
    // A redirect_uri the client did not list: no redirect at all, a 400 in the contract's shape.
    const mismatch = await browser.get(authorizeUrl(gw, { clientId, challenge: pkcePair().challenge, redirectUri: 'http://127.0.0.1:9/callback/other' }));
    expect(mismatch.status).toBe(400);
    expect(mismatch.location).toBeUndefined();
    expect(JSON.parse(mismatch.text)).toMatchObject({ error: { code: 'missing_required_parameter', param: 'redirect_uri' } });

    const { challenge } = pkcePair();
    const code = (await approve(gw, { clientId, challenge })).searchParams.get('code')!;
    const bad = await token(gw, { grant_type: 'authorization_code', code, code_verifier: pkcePair().verifier, client_id: clientId, redirect_uri: REDIRECT });
    expect(bad.status).toBe(400);
    expect(bad.json).toEqual({ error: 'invalid_grant', error_description: expect.stringMatching(/code_verifier/) });
    const wrongRedirect = await token(gw, { grant_type: 'authorization_code', code, code_verifier: pkcePair().verifier, client_id: clientId, redirect_uri: `${REDIRECT}x` });
    expect(wrongRedirect.json.error).toBe('invalid_grant');
    const wrongClient = await token(gw, {
      grant_type: 'authorization_code',
      code,
      code_verifier: pkcePair().verifier,
      client_id: `${docs.url}/other.json`,
      redirect_uri: REDIRECT,
    });
    expect(wrongClient.json.error).toBe('invalid_grant');
  });

  it('binds the token to its resource: a token for /mcp/remote is refused at /mcp; an unknown resource is invalid_target', async () => {
    const { verifier, challenge } = pkcePair();
    const code = (await approve(gw, { clientId, challenge, resource: `${gw.url}/mcp/remote` })).searchParams.get('code')!;
    const issued = await token(gw, { grant_type: 'authorization_code', code, code_verifier: verifier, client_id: clientId, redirect_uri: REDIRECT });
    expect(issued.status).toBe(200);
    expect((await rawPost(`${gw.url}/mcp/remote`, list, { authorization: `Bearer ${issued.json.access_token}` })).status).toBe(200);
    const elsewhere = await rawPost(`${gw.url}/mcp`, list, { authorization: `Bearer ${issued.json.access_token}` });
    expect(elsewhere.status).toBe(401);
    expect(elsewhere.json.error.message).toMatch(/another audience/);

    const page = await new FormBrowser().get(authorizeUrl(gw, { clientId, challenge, resource: 'https://elsewhere.example/mcp' }));
    expect(new URL(page.location!).searchParams.get('error')).toBe('invalid_target');
  });

  it('answers token-endpoint errors in OAuth shape', async () => {
    expect(await token(gw, { grant_type: 'password', client_id: clientId })).toMatchObject({ status: 400, json: { error: 'unsupported_grant_type' } });
    expect(await token(gw, { grant_type: 'authorization_code', code: 'x', code_verifier: pkcePair().verifier })).toMatchObject({ status: 401, json: { error: 'invalid_client' } });
    const garbled = await fetch(`${gw.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from('%E0%A4%A:x').toString('base64')}` },
      body: 'grant_type=refresh_token&refresh_token=gwr_x',
    });
    expect(garbled.status).toBe(401);
    expect(await garbled.json()).toMatchObject({ error: 'invalid_client' });
    const json = await fetch(`${gw.url}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(json.status).toBe(400);
    expect(await json.json()).toMatchObject({ error: 'invalid_request' });
  });

  it('registers clients dynamically (RFC 7591) and refuses bad redirect URIs', async () => {
    const register = (body: unknown) => fetch(`${gw.url}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const ok = await register({ client_name: 'Legacy', redirect_uris: [REDIRECT] });
    expect(ok.status).toBe(201);
    const info = (await ok.json()) as any;
    expect(info).toMatchObject({ client_id: expect.stringMatching(/^gwc_/), token_endpoint_auth_method: 'none', redirect_uris: [REDIRECT] });
    const { verifier, challenge } = pkcePair();
    const code = (await approve(gw, { clientId: info.client_id, challenge })).searchParams.get('code')!;
    expect((await token(gw, { grant_type: 'authorization_code', code, code_verifier: verifier, client_id: info.client_id, redirect_uri: REDIRECT })).status).toBe(200);
    for (const uris of [['http://evil.example/cb'], ['javascript:alert(1)'], ['https://ok.example/cb#frag'], []]) {
      const res = await register({ redirect_uris: uris });
      expect(res.status).toBe(400);
      expect(((await res.json()) as any).error).toBe('invalid_redirect_uri');
    }
  });

  it('refuses a metadata document whose client_id is not the URL it was fetched from', async () => {
    const before = docs.document;
    try {
      docs.document = () => ({ client_id: 'https://someone-else.example/client.json', redirect_uris: [REDIRECT] });
      const page = await new FormBrowser().get(authorizeUrl(gw, { clientId: `${docs.url}/other.json`, challenge: pkcePair().challenge }));
      expect(page.status).toBe(400);
      expect(JSON.parse(page.text).error.message).toMatch(/client_id is not the URL/);
    } finally {
      docs.document = before;
    }
  });
});

describe('authorization-server negatives with their own settings', () => {
  let gw: TestGateway;
  let strict: TestGateway;
  let docs: MetadataDocumentHost;

  beforeAll(async () => {
    docs = await new MetadataDocumentHost().start();
    docs.document = () => ({ redirect_uris: [REDIRECT] });
    gw = await startGateway({
      auth: {
        enabled: true,
        type: 'oauth',
        adminToken: ADMIN_TOKEN,
        apiKeys: [{ key: ALICE_KEY, user: 'alice' }],
        oauth: { role: 'authorization-server', allowInsecureClientMetadata: true, codeLifetime: '1s' },
      },
    });
    // Without allowInsecureClientMetadata: metadata documents on loopback or private addresses are refused.
    strict = await startGateway({ auth: { enabled: true, type: 'oauth', apiKeys: [{ key: ALICE_KEY, user: 'alice' }], oauth: { role: 'authorization-server' } } });
  });
  afterAll(async () => {
    await gw?.close();
    await strict?.close();
    await docs?.stop();
  });

  it('an expired code is refused', async () => {
    const clientId = `${docs.url}/client.json`;
    const { verifier, challenge } = pkcePair();
    const code = (await approve(gw, { clientId, challenge })).searchParams.get('code')!;
    await new Promise((r) => setTimeout(r, 2100));
    const res = await token(gw, { grant_type: 'authorization_code', code, code_verifier: verifier, client_id: clientId, redirect_uri: REDIRECT });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ error: 'invalid_grant', error_description: expect.stringMatching(/expired/) });
  });

  it('a grant made with an issued gateway token ends when that token is revoked', async () => {
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
    const created = (await (await fetch(`${gw.url}/v1/auth/tokens`, { method: 'POST', headers: admin, body: JSON.stringify({ user: 'tom' }) })).json()) as any;
    expect(created.token).toMatch(/^gwt_/);
    const clientId = `${docs.url}/client.json`;
    const { verifier, challenge } = pkcePair();
    const code = (await approve(gw, { clientId, challenge, key: created.token })).searchParams.get('code')!;
    const issued = await token(gw, { grant_type: 'authorization_code', code, code_verifier: verifier, client_id: clientId, redirect_uri: REDIRECT });
    expect(issued.status).toBe(200);
    const refreshed = await token(gw, { grant_type: 'refresh_token', refresh_token: issued.json.refresh_token, client_id: clientId });
    expect(refreshed.status).toBe(200);
    expect((await fetch(`${gw.url}/v1/auth/tokens/${created.id}`, { method: 'DELETE', headers: admin })).status).toBe(200);
    const after = await token(gw, { grant_type: 'refresh_token', refresh_token: refreshed.json.refresh_token, client_id: clientId });
    expect(after).toMatchObject({ status: 400, json: { error: 'invalid_grant', error_description: expect.stringMatching(/no longer valid/) } });
  });

  it('a metadata document URL on a private or loopback address, or over http, is refused without the flag', async () => {
    const hitsBefore = docs.hits;
    for (const clientId of [
      `${docs.url}/client.json`,
      'https://127.0.0.1/client.json',
      'https://10.1.2.3/client.json',
      'https://[::1]/client.json',
      'https://169.254.169.254/latest/meta-data',
      'https://localhost/client.json',
    ]) {
      const page = await new FormBrowser().get(authorizeUrl(strict, { clientId, challenge: pkcePair().challenge }));
      expect(page.status, clientId).toBe(400);
      expect(page.location, clientId).toBeUndefined();
      expect(JSON.parse(page.text).error.param).toBe('client_id');
    }
    expect(docs.hits).toBe(hitsBefore);
  });

  it('refuses to start with a signing key that is not an EC P-256 or Ed25519 PEM, or a zero lifetime', async () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    const auth = (oauth: Record<string, unknown>) => ({ auth: { enabled: true, type: 'oauth', oauth: { role: 'authorization-server', ...oauth } } });
    await expect(startGateway(auth({ signingKey: 'not a pem' }))).rejects.toThrow(/auth\.oauth\.signingKey: is not a PEM private key/);
    await expect(startGateway(auth({ signingKey: rsa }))).rejects.toThrow(/auth\.oauth\.signingKey: must be an EC P-256/);
    await expect(startGateway(auth({ codeLifetime: '0s' }))).rejects.toThrow(/auth\.oauth\.codeLifetime: must be at least 1s/);
  });

  it('the authorization-server routes are 404 on a gateway without the role', async () => {
    const plain = await startGateway({});
    try {
      for (const path of ['/.well-known/oauth-authorization-server', '/oauth/jwks']) expect((await fetch(`${plain.url}${path}`)).status).toBe(404);
    } finally {
      await plain.close();
    }
  });
});

describe('authorization-server endpoints for browser-based clients', () => {
  let gw: TestGateway;

  beforeAll(async () => {
    gw = await startGateway({
      server: { allowedOrigins: ['http://localhost:6274'] },
      auth: { enabled: true, type: 'oauth', apiKeys: [{ key: ALICE_KEY, user: 'alice' }], oauth: { role: 'authorization-server' } },
    });
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('answers preflights and CORS for allowed origins, refuses foreign ones', async () => {
    const preflight = await fetch(`${gw.url}/oauth/token`, {
      method: 'OPTIONS',
      headers: { origin: 'http://localhost:6274', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('http://localhost:6274');
    const meta = await fetch(`${gw.url}/.well-known/oauth-authorization-server`, { headers: { origin: 'http://localhost:6274' } });
    expect(meta.status).toBe(200);
    expect(meta.headers.get('access-control-allow-origin')).toBe('http://localhost:6274');
    const prm = await fetch(`${gw.url}/.well-known/oauth-protected-resource/mcp`, {
      method: 'OPTIONS',
      headers: { origin: 'http://localhost:6274', 'access-control-request-method': 'GET' },
    });
    expect(prm.status).toBe(204);
    expect(prm.headers.get('access-control-allow-origin')).toBe('http://localhost:6274');
    const doc = await fetch(`${gw.url}/.well-known/oauth-protected-resource`, { headers: { origin: 'http://localhost:6274' } });
    expect(doc.headers.get('access-control-allow-origin')).toBe('http://localhost:6274');
    const foreign = await fetch(`${gw.url}/oauth/register`, { method: 'POST', headers: { origin: 'https://evil.example', 'content-type': 'application/json' }, body: '{}' });
    expect(foreign.status).toBe(403);
  });
});

describe('authorization-server credentials over plain HTTP on a non-loopback address', () => {
  const address = Object.values(networkInterfaces())
    .flat()
    .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;
  const dataDir = mkdtempSync(join(tmpdir(), 'gw-oauth-insecure-'));
  let gateway: Gateway;
  let url: string;

  beforeAll(async () => {
    const config = buildConfig({ auth: { enabled: true, type: 'oauth', oauth: { role: 'authorization-server' } }, logging: { level: 'warn' } }, 'test', {
      env: { ...process.env, GATEWAY_DATA_DIR: dataDir },
    });
    gateway = await createGateway(config, { logDestination: new LogCollector() });
    const port = new URL(await gateway.listen(0, address ?? '127.0.0.1')).port;
    url = `http://${address ?? '127.0.0.1'}:${port}`;
  });
  afterAll(async () => {
    await gateway?.close(1000);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it(`refuses the token endpoint and the login form there (${address ?? 'none found: loopback only'}); the metadata stays public`, async () => {
    expect((await fetch(`${url}/.well-known/oauth-authorization-server`)).status).toBe(200);
    const res = await fetch(`${url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=refresh_token&refresh_token=gwr_x&client_id=c',
    });
    const body = (await res.json()) as any;
    const login = await fetch(`${url}/oauth/login`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'key=secret-key-value' });
    if (!address) {
      // Loopback only here: the requests are read (an unknown refresh token, a login without its authorization).
      expect(body.error).toBe('invalid_grant');
      expect(login.status).toBe(400);
      return;
    }
    expect(res.status).toBe(400);
    expect(body).toMatchObject({ error: 'invalid_request', error_description: expect.stringMatching(/plain HTTP/) });
    expect(login.status).toBe(403);
  });
});
