import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { request } from 'undici';
import { HttpToolServer } from '../helpers/http-tool-server.js';
import { FormBrowser, hiddenFields, pkcePair, type Page } from '../helpers/oauth-browser.js';
import { startGateway, type TestGateway } from '../helpers/start-gateway.js';
import { dropSharedState, sharedStoreConfig } from '../helpers/shared-stores.js';
import { countStatus, fuzz, nastyString, RUNS, summary, type Answer, expectNoSecret, expectContractError } from './harness.js';

const ALICE_KEY = 'alice-oauth-fuzz-key-0123456789abcdef';
const READER_KEY = 'reader-oauth-fuzz-key-0123456789abcdef';
const REDIRECT = 'http://127.0.0.1:9/callback';

/** The error codes an OAuth endpoint may answer with (RFC 6749 §5.2, RFC 7591 §3.2.2, RFC 7009, RFC 8707). */
const OAUTH_CODES = new Set([
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'unauthorized_client',
  'unsupported_grant_type',
  'invalid_scope',
  'invalid_target',
  'temporarily_unavailable',
  'invalid_redirect_uri',
  'invalid_client_metadata',
  'unsupported_token_type',
]);

const json = fc.jsonValue({ maxDepth: 2 });
const mostly = <T>(valid: fc.Arbitrary<T>, other: fc.Arbitrary<unknown> = fc.oneof(nastyString, json)) =>
  fc.oneof({ weight: 30, arbitrary: valid as fc.Arbitrary<unknown> }, { weight: 1, arbitrary: other });
/** A form or query value: mostly the right one (`undefined`: leave it out), sometimes anything. */
const field = (right: fc.Arbitrary<string | undefined>) =>
  fc.oneof({ weight: 8, arbitrary: right }, { weight: 1, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: nastyString });

/** A dynamic registration (RFC 7591): public clients, redirect URIs right and wrong, metadata of any value. */
const registration = fc.record(
  {
    redirect_uris: mostly(
      fc.array(
        fc.oneof(
          { weight: 6, arbitrary: fc.constant(REDIRECT) },
          { weight: 1, arbitrary: fc.constantFrom('https://app.example/cb', 'http://evil.example/cb', 'javascript:alert(1)', '/relative', 'http://127.0.0.1:9/cb#frag') },
        ),
        {
          minLength: 1,
          maxLength: 3,
        },
      ),
    ),
    client_name: mostly(fc.oneof(fc.string({ maxLength: 30 }), fc.constantFrom('<script>alert(1)</script>', '"onmouseover="x', 'Ünïcödé ☃'))),
    token_endpoint_auth_method: mostly(fc.constantFrom('none'), fc.constantFrom('client_secret_basic', 'private_key_jwt')),
    grant_types: mostly(fc.subarray(['authorization_code', 'refresh_token']), fc.constantFrom(['client_credentials'], 'authorization_code')),
    response_types: mostly(fc.constant(['code']), fc.constantFrom(['token'], 'code')),
    scope: mostly(fc.constantFrom('mcp:read', 'mcp:read mcp:write', 'openid')),
    client_uri: mostly(fc.constantFrom('https://app.example', 'x'.repeat(600))),
  },
  { requiredKeys: [] },
);

/** How a flow departs from the right one at each of its steps (mostly it does not). */
const flow = fc.record({
  registration,
  clientId: fc.oneof(
    { weight: 8, arbitrary: fc.constant('registered') },
    { weight: 1, arbitrary: fc.oneof(nastyString, fc.constantFrom('gwc_unknown', 'https://127.0.0.1:9/client.json')) },
  ),
  redirect: field(fc.constant(REDIRECT)),
  responseType: field(fc.constant('code')),
  method: field(fc.constantFrom('S256', 'S256', 'plain')),
  challenge: field(fc.constant('right')),
  resource: fc.oneof(fc.constant(undefined), fc.constantFrom('gateway/mcp', 'gateway/mcp/remote', 'gateway/mcp/no such', 'https://elsewhere.example/mcp'), nastyString),
  scope: field(fc.constantFrom('mcp:read', 'mcp:read mcp:write', 'mcp:write openid', 'admin')),
  state: fc.option(nastyString, { nil: undefined }),
  key: fc.constantFrom('alice', 'alice', 'alice', 'reader', 'wrong', ''),
  tamper: fc.constantFrom('none', 'none', 'none', 'none', 'csrf', 'request', 'cookie'),
  decision: fc.constantFrom('approve', 'approve', 'approve', 'deny', 'maybe'),
  exchange: fc.record({
    code: fc.constantFrom('right', 'right', 'right', 'twice', 'wrong'),
    verifier: fc.constantFrom('right', 'right', 'right', 'wrong', 'short', 'missing'),
    redirect: fc.constantFrom('right', 'right', 'right', 'wrong', 'missing'),
    client: fc.constantFrom('right', 'right', 'right', 'other', 'basic', 'missing'),
    resource: fc.option(fc.constantFrom('gateway/mcp', 'https://elsewhere.example/mcp'), { nil: undefined }),
  }),
  after: fc.array(
    fc.record({
      kind: fc.constantFrom('refresh', 'refresh', 'use', 'use', 'revoke-access', 'revoke-refresh', 'junk-token'),
      scope: fc.option(fc.constantFrom('mcp:read', 'mcp:write', 'mcp:read admin', ''), { nil: undefined }),
      client: fc.constantFrom('right', 'right', 'other'),
      junk: fc.oneof(
        nastyString,
        json.map((v) => JSON.stringify(v)),
      ),
    }),
    { maxLength: 4 },
  ),
});

/** The tokens a flow ended with. */
interface Tokens {
  access?: string;
  refresh?: string;
}

/**
 * The gateway as OAuth 2.1 authorization server, fuzzed along its whole flow: dynamic
 * registrations of any metadata, authorization requests with each parameter right or wrong,
 * login with right and wrong keys, forms with their CSRF token, request id or cookie tampered,
 * consent approved, denied or neither, the code exchanged with each part right or wrong (twice,
 * too), then refreshes, uses on /mcp, revocations and junk tokens. Every answer is a success of
 * its kind, OAuth's error body on the token, revocation and registration endpoints, or the
 * contract's error body (or the login page again) on the pages; no answer is a 5xx, none holds
 * a gateway key the login was given, and a token that was revoked (or whose grant was) no
 * longer opens /mcp.
 */
describe.each([['sqlite'], ['postgres']])('fuzz: the OAuth authorization server (%s)', { timeout: 900_000 }, (store) => {
  let gw: TestGateway;
  let remote: HttpToolServer;
  const schema = `gw_fuzz_oauth_${randomBytes(6).toString('hex')}`;
  const secrets = [ALICE_KEY, READER_KEY];

  beforeAll(async () => {
    remote = await new HttpToolServer().start();
    gw = await startGateway({
      logging: { level: 'warn' },
      auth: {
        enabled: true,
        type: 'oauth',
        apiKeys: [
          { key: ALICE_KEY, user: 'alice', email: 'alice@example.com', team: 'research' },
          { key: READER_KEY, user: 'rita', scopes: ['mcp:read'] },
        ],
        // The fuzz logs in with wrong keys on purpose: a limit its cases cannot reach.
        oauth: { role: 'authorization-server', allowInsecureClientMetadata: true, loginAttempts: { max: 1_000_000, window: '1h' } },
      },
      mcpServers: { remote: { url: remote.url } },
      ...(store === 'postgres' ? sharedStoreConfig('postgres', '', schema) : {}),
    });
  });
  afterAll(async () => {
    await gw?.close();
    await remote?.stop();
    if (store === 'postgres') await dropSharedState('postgres', '', schema);
    console.log(summary());
  });

  /** An answer of an OAuth endpoint (token, revocation, registration): success, or OAuth's error body. */
  const expectOAuth = (answer: Answer, what: string) => {
    countStatus(answer.status);
    expect(answer.status, `${what}: ${answer.text.slice(0, 300)}`).toBeLessThan(500);
    if (answer.status < 400) return;
    const body = JSON.parse(answer.text);
    // A request the edge itself refuses (too large, a NUL a store cannot look up) is the contract's body.
    if (body.status === 'failure') return expectContractError(answer, what);
    expect(OAUTH_CODES.has(body.error), `${what}: ${answer.text.slice(0, 300)}`).toBe(true);
    expect(typeof body.error_description).toBe('string');
  };
  /** A page of the flow (authorize, login, consent): a page, a redirect, or the contract's error body. */
  const expectPage = (page: Page, what: string) => {
    countStatus(page.status);
    expect(page.status, `${what}: ${page.text.slice(0, 300)}`).toBeLessThan(500);
    if (page.status >= 400 && !String(page.headers['content-type']).startsWith('text/html'))
      expectContractError({ status: page.status, headers: page.headers, text: page.text }, what);
    expectNoSecret({ status: page.status, headers: page.headers, text: page.text }, secrets, what);
  };
  const form = async (path: string, body: Record<string, string | undefined>, headers: Record<string, string> = {}): Promise<Answer> => {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(body)) if (v !== undefined) params.set(k, v);
    const res = await request(`${gw.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: params.toString() });
    return { status: res.statusCode, headers: res.headers, text: await res.body.text() };
  };
  const useMcp = async (token: string): Promise<number> => {
    const res = await request(`${gw.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    await res.body.dump();
    return res.statusCode;
  };

  it('every flow, right or wrong at any step, is answered by OAuth or the contract', async () => {
    await fuzz(`oauth ${store}`, flow, RUNS(80), async (f) => {
      const resource = (r: string | undefined) => (r?.startsWith('gateway/') ? `${gw.url}/${r.slice('gateway/'.length)}` : r);
      // Registration.
      const reg = await request(`${gw.url}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(f.registration) });
      const regAnswer = { status: reg.statusCode, headers: reg.headers, text: await reg.body.text() };
      expectOAuth(regAnswer, `register ${JSON.stringify(f.registration).slice(0, 300)}`);
      const registered = reg.statusCode === 201 ? (JSON.parse(regAnswer.text).client_id as string) : 'gwc_unregistered';
      const clientId = f.clientId === 'registered' ? registered : String(f.clientId);

      // Authorization, login, consent.
      const { verifier, challenge } = pkcePair();
      const url = new URL(`${gw.url}/oauth/authorize`);
      const q: Record<string, string | undefined> = {
        client_id: clientId,
        redirect_uri: f.redirect,
        response_type: f.responseType,
        code_challenge_method: f.method,
        code_challenge: f.challenge === 'right' ? challenge : f.challenge,
        resource: resource(f.resource),
        scope: f.scope,
        state: f.state,
      };
      for (const [k, v] of Object.entries(q)) if (v !== undefined) url.searchParams.set(k, v.replace(/[\uD800-\uDFFF]/g, '\uFFFD'));
      const browser = new FormBrowser();
      const login = await browser.get(url.href);
      expectPage(login, `authorize ${url.search.slice(0, 300)}`);
      let code: string | undefined;
      if (login.status === 200) {
        const fields = hiddenFields(login.text);
        if (f.tamper === 'csrf') fields.csrf = 'x'.repeat(32);
        if (f.tamper === 'request') fields.request = `gwp_${'A'.repeat(40)}`;
        if (f.tamper === 'cookie') browser.forget();
        const key = f.key === 'alice' ? ALICE_KEY : f.key === 'reader' ? READER_KEY : f.key === 'wrong' ? 'not-a-key-0123456789abcdef' : '';
        const consent = await browser.post(`${gw.url}/oauth/login`, { ...fields, key });
        expectPage(consent, `login (${f.key}, tamper ${f.tamper})`);
        if (consent.status === 200 && hiddenFields(consent.text).request) {
          const back = await browser.post(`${gw.url}/oauth/consent`, { ...hiddenFields(consent.text), decision: f.decision });
          expectPage(back, `consent ${f.decision}`);
          if (back.status === 302) {
            const to = new URL(back.location!);
            expect(`${to.origin}${to.pathname}`).toBe(REDIRECT);
            code = to.searchParams.get('code') ?? undefined;
            if (f.decision !== 'approve') expect(code).toBeUndefined();
          }
        }
      }

      // The code exchanged (or a made-up one).
      const tokens: Tokens = {};
      const x = f.exchange;
      const exchange = () =>
        form(
          '/oauth/token',
          {
            grant_type: 'authorization_code',
            code: x.code === 'wrong' || !code ? 'not-a-code-0123456789' : code,
            code_verifier: x.verifier === 'right' ? verifier : x.verifier === 'wrong' ? pkcePair().verifier : x.verifier === 'short' ? 'short' : undefined,
            redirect_uri: x.redirect === 'right' ? REDIRECT : x.redirect === 'wrong' ? 'http://127.0.0.1:9/other' : undefined,
            client_id: x.client === 'right' ? clientId : x.client === 'other' ? 'gwc_other' : undefined,
            resource: resource(x.resource),
          },
          x.client === 'basic' ? { authorization: `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:`).toString('base64')}` } : {},
        );
      const first = await exchange();
      expectOAuth(first, `token exchange ${JSON.stringify(x)}`);
      if (first.status === 200) {
        const body = JSON.parse(first.text);
        expect(body).toMatchObject({ token_type: 'Bearer', access_token: expect.any(String), refresh_token: expect.stringMatching(/^gwr_/) });
        tokens.access = body.access_token;
        tokens.refresh = body.refresh_token;
      }
      if (x.code === 'twice') {
        // The code again: refused, and what it gave is revoked (RFC 6749 §4.1.2).
        const again = await exchange();
        expectOAuth(again, 'token exchange, the code again');
        expect(again.status).toBeGreaterThanOrEqual(400);
        if (tokens.access) expect(await useMcp(tokens.access)).toBe(401);
        tokens.access = tokens.refresh = undefined;
      }

      // What a client does with its tokens afterwards.
      let revoked = false;
      for (const step of f.after) {
        const client = step.client === 'right' ? clientId : 'gwc_other';
        if (step.kind === 'refresh') {
          const answer = await form('/oauth/token', { grant_type: 'refresh_token', refresh_token: tokens.refresh ?? step.junk, client_id: client, scope: step.scope });
          expectOAuth(answer, `refresh ${JSON.stringify(step)}`);
          if (answer.status === 200) {
            expect(revoked, 'a revoked grant was refreshed').toBe(false);
            const body = JSON.parse(answer.text);
            tokens.access = body.access_token;
            tokens.refresh = body.refresh_token;
          }
        } else if (step.kind === 'use') {
          const status = await useMcp(tokens.access ?? step.junk.replace(/[^\x21-\x7e]/g, 'x'));
          countStatus(status);
          expect([200, 401, 403]).toContain(status);
          if (revoked && tokens.access) expect(status).toBe(401);
        } else {
          const token = step.kind === 'revoke-access' ? tokens.access : step.kind === 'revoke-refresh' ? tokens.refresh : step.junk;
          const answer = await form('/oauth/revoke', { token: token ?? step.junk, client_id: client });
          expectOAuth(answer, `revoke ${JSON.stringify(step)}`);
          if (answer.status === 200 && client === clientId && token && token === tokens.refresh) revoked = true;
          if (answer.status === 200 && client === clientId && token && token === tokens.access) expect(await useMcp(token)).toBe(401);
        }
      }
      const health = await request(`${gw.url}/health`);
      await health.body.dump();
      expect(health.statusCode).toBe(200);
    });
    // The keys the logins were given reached no log line either.
    for (const line of gw.logs.lines) for (const key of secrets) expect(line.includes(key), line.slice(0, 300)).toBe(false);
    expect(gw.logs.lines.filter((l) => /"level":50/.test(l)).map((l) => l.slice(0, 400))).toEqual([]);
  });
});
