// The console's login through the OpenID provider of auth.type oauth (authorization code flow
// with PKCE to the fake issuer): the session's role is the user's in the tenants.
import { chromium } from 'playwright-core';
import { request } from 'undici';
import { buildConsole } from '../../helpers/console-build.js';
import { CHROMIUM, CHROMIUM_FLAGS } from '../../helpers/chromium.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeOidcIssuer } from '../../helpers/oidc-issuer.js';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';

const ADMIN = 'admin-token-console-oidc-0001-0123456789abcdef';

const cookiesOf = (raw: string | string[] | undefined): string[] => (raw === undefined ? [] : Array.isArray(raw) ? raw : [raw]);
const pairs = (setCookie: string[]) => setCookie.map((c) => c.split(';')[0]!).filter((c) => !c.endsWith('='));

/** The browser's part: the gateway's redirect to the provider, the provider's back to the callback, then the callback itself. */
async function oidcLogin(gw: TestGateway, tamper?: (callback: URL) => void): Promise<{ status: number; location?: string; cookies: string[]; json?: any; startCookies: string[] }> {
  const start = await request(`${gw.url}/v1/admin/session/oidc`);
  await start.body.dump();
  expect(start.statusCode).toBe(302);
  const startCookies = cookiesOf(start.headers['set-cookie']);
  const toProvider = new URL(String(start.headers.location));
  const atProvider = await request(toProvider.href);
  await atProvider.body.dump();
  expect(atProvider.statusCode).toBe(302);
  const callback = new URL(String(atProvider.headers.location));
  tamper?.(callback);
  const back = await request(callback.href, { headers: { cookie: pairs(startCookies).join('; ') } });
  const text = await back.body.text();
  return {
    status: back.statusCode,
    location: back.headers.location as string | undefined,
    cookies: cookiesOf(back.headers['set-cookie']),
    json: text ? JSON.parse(text) : undefined,
    startCookies,
  };
}

describe('console login through the OpenID provider', { timeout: 120_000 }, () => {
  let issuer: FakeOidcIssuer;
  let gw: TestGateway;
  let off: TestGateway;
  beforeAll(async () => {
    buildConsole();
    issuer = await new FakeOidcIssuer().start();
    gw = await startGateway({
      logging: { level: 'warn' },
      ui: { enabled: true },
      auth: { type: 'oauth', issuer: issuer.url, clientId: issuer.client.id, clientSecret: issuer.client.secret, adminToken: ADMIN },
      tenants: { users: { 'oidc-user-1': { roles: ['viewer'] } } },
    });
    off = await startGateway({ logging: { level: 'warn' }, auth: { adminToken: ADMIN } });
  });
  afterAll(async () => {
    await gw?.close();
    await off?.close();
    await issuer?.stop();
  });

  it('says whether it is on (probe), and sends the browser to the provider with PKCE, a nonce and a state kept in a signed Lax cookie', async () => {
    const probe = await request(`${gw.url}/v1/admin/session/oidc?probe=1`);
    expect(probe.statusCode).toBe(200);
    expect(await probe.body.json()).toMatchObject({ object: 'admin.session.oidc', enabled: true });
    const start = await request(`${gw.url}/v1/admin/session/oidc`);
    await start.body.dump();
    const location = new URL(String(start.headers.location));
    expect(location.origin).toBe(issuer.url);
    expect(location.searchParams.get('code_challenge_method')).toBe('S256');
    expect(location.searchParams.get('redirect_uri')).toBe(`${gw.url}/v1/admin/session/oidc/callback`);
    expect(location.searchParams.get('nonce')).toBeTruthy();
    const cookie = cookiesOf(start.headers['set-cookie'])[0]!;
    expect(cookie).toMatch(/^gw_admin_oidc=.+; Path=\/v1\/admin\/session; HttpOnly; SameSite=Lax; Max-Age=600$/);
    const offProbe = await request(`${off.url}/v1/admin/session/oidc?probe=1`);
    expect(offProbe.statusCode).toBe(200);
    expect(await offProbe.body.json()).toMatchObject({ enabled: false, provider: null });
    const off404 = await request(`${off.url}/v1/admin/session/oidc`);
    expect(off404.statusCode).toBe(404);
    expect(((await off404.body.json()) as any).error).toBeDefined();
  });

  it('logs the user in with their role in the tenants (viewer): a session cookie, then /ui/; the session reads and the API refuses its writes', async () => {
    const result = await oidcLogin(gw);
    expect(result.status).toBe(302);
    expect(result.location).toBe('/ui/');
    const session = result.cookies.find((c) => c.startsWith('gw_admin_session='))!;
    expect(session).toMatch(/HttpOnly; SameSite=Strict/);
    const cookie = pairs(result.cookies).join('; ');
    const me = await request(`${gw.url}/v1/admin/session`, { headers: { cookie } });
    expect(me.statusCode).toBe(200);
    expect(await me.body.json()).toMatchObject({ role: 'viewer', user: 'oidc-user-1' });
    const keys = await request(`${gw.url}/v1/auth/tokens`, { headers: { cookie } });
    await keys.body.dump();
    expect(keys.statusCode).toBe(200);
    const csrf = (await (await request(`${gw.url}/v1/admin/session`, { headers: { cookie } })).body.json()) as any;
    const write = await request(`${gw.url}/v1/auth/tokens`, {
      method: 'POST',
      headers: { cookie, 'x-csrf-token': csrf.csrf_token, 'content-type': 'application/json' },
      body: '{"user":"x@example.com"}',
    });
    await write.body.dump();
    expect(write.statusCode).toBe(403);
  });

  it('refuses a callback whose state is not the one this browser was given, and a user with no admin role', async () => {
    const forged = await oidcLogin(gw, (callback) => callback.searchParams.set('state', 'not-the-state'));
    expect(forged.status).toBe(400);
    expect(forged.json.error.param).toBe('state');
    expect(forged.cookies.some((c) => c.startsWith('gw_admin_session=') && !c.startsWith('gw_admin_session=;'))).toBe(false);
    issuer.user = { sub: 'oidc-nobody', claims: { email: 'nobody@example.com' } };
    try {
      const nobody = await oidcLogin(gw);
      expect(nobody.status).toBe(403);
      expect(nobody.json.error.message).toMatch(/none of the admin roles/);
    } finally {
      issuer.user = { sub: 'oidc-user-1', claims: { email: 'olga@example.com', name: 'Olga' } };
    }
  });

  it('in a real browser: the login page offers the provider, its link ends on the console with the viewer role', async () => {
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS, timeout: 60_000 });
    try {
      const context = await browser.newContext();
      context.setDefaultTimeout(20_000);
      const page = await context.newPage();
      await page.goto(`${gw.url}/ui/`);
      const link = page.getByRole('link', { name: /^Log in with / });
      await link.waitFor();
      await link.click();
      await expect.poll(() => page.locator('h1').textContent(), { timeout: 20_000 }).toBe('Overview');
      expect(await page.locator('#who').textContent()).toContain('oidc-user-1 · viewer');
      const cookies = await context.cookies(gw.url);
      expect(cookies.find((c) => c.name === 'gw_admin_session')).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
      expect(cookies.some((c) => c.name === 'gw_admin_oidc')).toBe(false);
    } finally {
      await browser.close();
    }
  });
});
