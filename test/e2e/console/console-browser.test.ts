// The admin console in a real browser: Debian's chromium driven by playwright-core (no browser
// download). The gateway runs in-process; every check goes through the UI (clicks and typing),
// the API is called directly only to set up data and to force a write the UI does not offer.
import { mkdirSync } from 'node:fs';
import OpenAI from 'openai';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page, type Route } from 'playwright-core';
import { request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../helpers/built-gateway.js';
import { buildConsole } from '../../helpers/console-build.js';
import { FakeUpstream } from '../../helpers/fake-upstream.js';
import { eventually } from '../../helpers/mcp.js';
import { answers, CHAT, chatBody, post, UPSTREAM_CHAT } from '../../helpers/routing-harness.js';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';
import { CHROMIUM, CHROMIUM_FLAGS as FLAGS } from '../../helpers/chromium.js';
import { CONSOLE_PAGES } from '../../helpers/console-pages.js';

// The callbacks given to page.evaluate run in the page: its globals, for the type checker (the tests' lib has no DOM).
declare const document: any, window: any, location: any, navigator: any, requestAnimationFrame: any, getComputedStyle: any;

const TOOL_SERVER = join(import.meta.dirname, '..', '..', 'helpers', 'stdio-tool-server.mjs');
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
/** SCREENSHOTS=1 writes docs/console-*.png (for the README); a plain test run writes nothing into the repo. */
const SCREENSHOTS = process.env.SCREENSHOTS === '1';

const ADMIN = 'admin-token-browser-0001-0123456789abcdef';
const VIEWER_KEY = 'cfg-browser-viewer-key-0002-0123456789abcdef';
const PLAIN_KEY = 'cfg-browser-plain-key-0003-0123456789abcdef';
/** Waits in a browser under load (2 shared cores): generous, never a timing assertion. */
const WAIT = 20_000;

/** Each main page with its readiness selector in playwright's form (`:has-text` where text tells it is drawn). */
const PAGES = CONSOLE_PAGES.map((p) => ({ ...p, ready: p.readyText ? `${p.ready}:has-text("${p.readyText}")` : p.ready }));

/** What a page wrote to its console as errors or warnings, and what it threw. */
interface Watched {
  page: Page;
  errors: string[];
}

/** Console errors that are not the page's fault: an API answer the test expects (the session check before login, a refused write). */
function unexpected(errors: string[], allowed: number[] = []): string[] {
  return errors.filter((e) => {
    const m = /^console: Failed to load resource: the server responded with a status of (\d+).* @ (\S+)$/.exec(e);
    if (!m) return true;
    const [, status, url] = m;
    if (status === '401' && url!.endsWith('/v1/admin/session')) return false; // "am I logged in?" on a fresh page
    return !allowed.includes(Number(status));
  });
}

const cspViolations = (errors: string[]) => errors.filter((e) => /Content Security Policy|Refused to/i.test(e));

async function api(base: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await request(`${base}${path}`, {
    method: method as 'GET',
    headers: { authorization: `Bearer ${ADMIN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.body.text();
  return { status: res.statusCode, json: text ? JSON.parse(text) : undefined };
}

describe('the console in a real browser (playwright-core + Debian chromium)', { timeout: 180_000 }, () => {
  let browser: Browser;
  let gw: TestGateway;
  let readOnly: TestGateway;
  let upstream: FakeUpstream;
  let context: BrowserContext | undefined;

  beforeAll(async () => {
    buildConsole();
    upstream = await new FakeUpstream().start();
    upstream.on(UPSTREAM_CHAT, answers('hello from upstream'));
    const config = (ui: Record<string, unknown>) => ({
      logging: { level: 'warn' },
      ui,
      providers: { openai: { baseUrl: `${upstream.url}/v1` } },
      auth: {
        adminToken: ADMIN,
        apiKeys: [
          { key: VIEWER_KEY, user: 'vera@example.com', roles: ['viewer'] },
          { key: PLAIN_KEY, user: 'paul@example.com', team: 'search' },
        ],
      },
      pricing: { unpriced: 'allow' },
      // A catalogue model through a held credential, and a file-defined team with a budget (read-only in the console).
      secrets: { key: 'ab'.repeat(32) },
      credentials: { 'openai-prod': { provider: 'openai', api_key: 'sk-held-browser-0001' } },
      models: { chat: { targets: [{ provider: 'openai', model: 'gpt-4o-mini', credential: 'openai-prod' }], price: { input: '0.0005', output: '0.001' }, max_output_tokens: 300 } },
      tenants: { teams: { search: {} } },
      budgets: { team: { search: { limit_usd: 0.5, window: { period: 'month' } } } },
      // A tool server that lists 51 tools (the Tool servers page pages and searches them).
      mcpServers: { bulk: { command: process.execPath, args: [TOOL_SERVER, '--bulk', '45'] } },
    });
    gw = await startGateway(config({ enabled: true }));
    readOnly = await startGateway(config({ enabled: true, readOnly: true }));
    browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS, timeout: 60_000 });
  });
  afterEach(async () => {
    await context?.close();
    context = undefined;
  });
  afterAll(async () => {
    await browser?.close();
    await gw?.close();
    await readOnly?.close();
    await upstream?.stop();
  });

  /** A fresh context (cookies, storage) and page for one test, its console errors and page errors collected. */
  async function open(options: { bypassCSP?: boolean } = {}): Promise<Watched> {
    context = await browser.newContext({ viewport: { width: 1280, height: 900 }, ...options });
    context.setDefaultTimeout(WAIT);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('console', (msg) => {
      if (msg.type() === 'error' || msg.type() === 'warning') errors.push(`console: ${msg.text()} @ ${msg.location().url}`);
    });
    page.on('pageerror', (err) => errors.push(`pageerror: ${err.message}`));
    return { page, errors };
  }

  async function logIn(page: Page, base: string, token: string, expectTitle = 'Overview'): Promise<void> {
    await page.goto(`${base}/ui/`);
    await page.getByLabel('Admin token or a gateway key with an admin role').fill(token);
    await page.getByRole('button', { name: 'Log in' }).click();
    await expect.poll(() => page.locator('h1').textContent(), { timeout: WAIT }).toBe(expectTitle);
  }

  async function visit(page: Page, path: string): Promise<void> {
    const target = PAGES.find((p) => p.path === path)!;
    await page.evaluate((p) => (location.hash = `#/${p}`), path);
    await page.locator('h1', { hasText: target.title }).waitFor();
    await page.locator(`main ${target.ready}`).first().waitFor();
  }

  it('logs in with the admin token (Overview), shows an error for a wrong token, and logs out', async () => {
    const { page, errors } = await open();
    await page.goto(`${gw.url}/ui/`);
    await page.getByLabel('Admin token or a gateway key with an admin role').fill('not-the-admin-token');
    await page.getByRole('button', { name: 'Log in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent(), { timeout: WAIT }).toMatch(/./);
    await expect.poll(() => page.locator('h1').textContent()).toBe('Log in');
    expect(await page.locator('#nav').isHidden()).toBe(true);

    await page.getByLabel('Admin token or a gateway key with an admin role').fill(ADMIN);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.locator('h1', { hasText: 'Overview' }).waitFor();
    await page.locator('main figure').first().waitFor();
    expect(await page.locator('#who').textContent()).toContain('admin');
    expect(await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Keys' }).isVisible()).toBe(true);
    expect(await page.content()).not.toContain(ADMIN);

    // The session survives a reload (the cookie), then logging out ends it.
    await page.reload();
    await page.locator('h1', { hasText: 'Overview' }).waitFor();
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.locator('h1', { hasText: 'Log in' }).waitFor();
    expect(await page.locator('#nav').isHidden()).toBe(true); // no page links once logged out
    await page.reload();
    await page.locator('h1', { hasText: 'Log in' }).waitFor();
    expect(unexpected(errors, [401])).toEqual([]);
  });

  it('creates a key shown once with a copy button, then never again; rotates and blocks it from the UI', async () => {
    const { page, errors } = await open();
    await context!.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: gw.url });
    await logIn(page, gw.url, ADMIN);
    await visit(page, 'keys');
    const create = page.getByRole('form', { name: 'Create a key' });
    await create.getByLabel('User', { exact: true }).fill('kim@example.com');
    await create.getByLabel('Team', { exact: true }).fill('search');
    await create.getByLabel('Name', { exact: true }).fill('kim laptop');
    await create.getByRole('button', { name: 'Create key' }).click();

    const once = page.getByRole('region', { name: 'New key' });
    const full = (await once.locator('code[data-secret]').textContent())!;
    expect(full).toMatch(/^gwt_[A-Za-z0-9_-]{20,}$/);
    await once.getByRole('button', { name: 'Copy' }).click();
    await expect.poll(() => once.getByRole('status').textContent(), { timeout: WAIT }).toBe('Copied.');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(full);
    const id = (await page.locator('tr', { hasText: 'kim@example.com' }).locator('code').first().textContent())!;
    expect(id).toMatch(/^tok_/);

    // Done: only the prefix and the last four characters remain.
    await once.getByRole('button', { name: 'Done' }).click();
    const masked = `gwt_…${full.slice(-4)}`;
    await page.getByText(`Created ${id}: ${masked}`).waitFor();
    expect(await page.content()).not.toContain(full);

    // Away and back: the list shows the key's id and gwt_…last4, never its value.
    await visit(page, 'overview');
    await visit(page, 'keys');
    const listed = page.locator('tr', { hasText: id });
    await listed.waitFor();
    expect(await listed.locator('td').nth(1).textContent()).toBe(masked);
    const everything = async () => (await page.content()) + (await page.evaluate(() => document.body.innerText));
    expect(await everything()).not.toContain(full);
    expect(await everything()).not.toContain(full.slice(4, 12)); // not even a longer part of it

    // The key works at once through the gateway.
    const headers = (key: string) => ({ 'x-gateway-provider': 'openai', authorization: 'Bearer sk-caller', 'x-gateway-token': key });
    expect((await post(gw.url, CHAT, chatBody(), headers(full))).status).toBe(200);

    // Rotate (no grace): a new value shown once; the old one stops working.
    const row = page.locator('tr', { hasText: id });
    await row.getByRole('button', { name: 'Rotate' }).click();
    const rotated = (await page.getByRole('region', { name: 'New key' }).locator('code[data-secret]').textContent())!;
    expect(rotated).toMatch(/^gwt_/);
    expect(rotated).not.toBe(full);
    await page.getByRole('region', { name: 'New key' }).getByRole('button', { name: 'Done' }).click();
    await page.getByText(`Rotated ${id}: gwt_…${rotated.slice(-4)}`).waitFor();
    await expect.poll(() => row.locator('td').nth(1).textContent(), { timeout: WAIT }).toBe(`gwt_…${rotated.slice(-4)}`);
    expect(await everything()).not.toContain(rotated);
    expect((await post(gw.url, CHAT, chatBody(), headers(full))).status).toBe(401);
    expect((await post(gw.url, CHAT, chatBody(), headers(rotated))).status).toBe(200);

    // Block: the row says so, the button turns to Unblock, and the key is refused.
    await row.getByRole('button', { name: 'Block' }).click();
    await row.getByText('blocked').waitFor();
    await row.getByRole('button', { name: 'Unblock' }).waitFor();
    expect((await api(gw.url, 'GET', '/v1/auth/tokens?search=kim@example.com')).json.data.map((t: any) => [t.id, t.blocked])).toEqual([[id, true]]);
    expect((await post(gw.url, CHAT, chatBody(), headers(rotated))).status).toBe(403);
    expect(unexpected(errors)).toEqual([]);
  });

  it('edits a key from the UI (models, limits, a money budget): the list shows it, the API keeps it, the key obeys it at once; a refusal is shown', async () => {
    const made = await api(gw.url, 'POST', '/v1/auth/tokens', { user: 'edit-me@example.com', team: 'search', name: 'to edit', models: ['chat'] });
    expect(made.status).toBe(201);
    const { id, token } = made.json as { id: string; token: string };
    const useChat = () => post(gw.url, CHAT, chatBody({ model: 'chat' }), { authorization: `Bearer ${token}` });
    expect((await useChat()).status).toBe(200);

    const { page, errors } = await open();
    await logIn(page, gw.url, ADMIN);
    await visit(page, 'keys');
    await page.getByRole('searchbox', { name: 'Search keys' }).fill('edit-me@');
    await page.getByRole('search').getByRole('button', { name: 'Search' }).click();
    const row = page.locator('table[aria-label="Keys"] tr', { hasText: id });
    await expect.poll(() => row.locator('td').nth(6).textContent(), { timeout: WAIT }).toBe('chat');

    // A value the API refuses (a name over 256 characters): its message is shown in the form, nothing changes.
    await row.getByRole('button', { name: 'Edit' }).click();
    let form = page.getByRole('form', { name: `Edit key ${id}` });
    expect(await form.getByLabel('Models (comma separated; empty: all)').inputValue()).toBe('chat');
    await form.getByLabel('Name', { exact: true }).fill('n'.repeat(300));
    await form.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => form.getByRole('alert').textContent(), { timeout: WAIT }).toMatch(/^name: /);
    expect((await api(gw.url, 'GET', `/v1/auth/tokens?search=${id}`)).json.data[0].name).toBe('to edit');
    await form.getByRole('button', { name: 'Cancel' }).click();
    expect(await page.getByRole('form', { name: `Edit key ${id}` }).count()).toBe(0);

    // Models, limits and a money budget, saved with PATCH and the CSRF header.
    const patched = page.waitForRequest((r) => r.method() === 'PATCH' && r.url().endsWith(`/v1/auth/tokens/${id}`));
    await row.getByRole('button', { name: 'Edit' }).click();
    form = page.getByRole('form', { name: `Edit key ${id}` });
    await form.getByLabel('Name', { exact: true }).fill('edited in the UI');
    await form.getByLabel('Models (comma separated; empty: all)').fill('other-model, gpt-*');
    await form.getByLabel('Requests per minute').fill('30');
    await form.getByLabel('Max parallel').fill('2');
    await form.getByLabel('Budget (USD)').fill('2.5');
    await form.getByLabel('Budget window').selectOption('week');
    await form.getByRole('button', { name: 'Save' }).click();
    const sent = await patched;
    expect(sent.headers()['x-csrf-token']).toMatch(/./);
    await page.getByText(`Saved ${id}.`).waitFor();
    expect(await page.getByRole('form', { name: `Edit key ${id}` }).count()).toBe(0);
    await expect.poll(() => row.locator('td').nth(6).textContent(), { timeout: WAIT }).toBe('other-model, gpt-*');
    expect(await row.locator('td').nth(4).textContent()).toBe('edited in the UI');
    expect(await row.locator('td').nth(7).textContent()).toBe('rpm 30, parallel 2');
    const kept = (await api(gw.url, 'GET', `/v1/auth/tokens?search=${id}`)).json.data[0];
    expect(kept).toMatchObject({
      name: 'edited in the UI',
      models: ['other-model', 'gpt-*'],
      limits: { rpm: 30, maxParallel: 2 },
      budgets: [{ limit_usd: 2.5, window: { period: 'week' } }],
    });
    expect(kept.limits.tpm).toBeUndefined();
    // The key may no longer use the catalogue's "chat": refused at once, as a model that does not exist.
    const refused = await useChat();
    expect(refused.status).toBe(404);
    expect(refused.json.error.code).toBe('model_not_found');
    // The edit is in the audit log.
    const audit = await api(gw.url, 'GET', '/v1/admin/audit?resource=token&limit=100');
    expect(audit.json.data.some((e: any) => e.action === 'token.update' && e.resource_id === id && e.after.models.includes('gpt-*'))).toBe(true);
    expect(unexpected(errors, [400])).toEqual([]);
  });

  it('a viewer sees the data, the API refuses its writes (403) even when forced, and the UI shows the refusal', async () => {
    expect((await api(gw.url, 'POST', '/v1/auth/tokens', { user: 'seen-by-viewer@example.com' })).status).toBe(201);
    const { page, errors } = await open();
    await logIn(page, gw.url, VIEWER_KEY);
    expect(await page.locator('#who').textContent()).toContain('viewer');
    await visit(page, 'keys');
    await page.locator('tr', { hasText: 'seen-by-viewer@example.com' }).waitFor();
    await page.getByText('Your role (viewer) reads only.').waitFor();

    // Forced past the UI: the session cookie and the CSRF header, and still 403.
    const forced = await page.evaluate(async () => {
      const csrf = document.cookie.match(/(?:^|; )gw_csrf=([^;]*)/)?.[1] ?? '';
      const res = await fetch('/v1/auth/tokens', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-csrf-token': csrf },
        body: JSON.stringify({ user: 'forced@example.com' }),
      });
      return { status: res.status, csrf: csrf.length > 0 };
    });
    expect(forced).toEqual({ status: 403, csrf: true });

    // The button is not the guard: enable it, submit, and the API's refusal is shown.
    await page.evaluate(() => document.querySelectorAll('main button[disabled]').forEach((b: any) => b.removeAttribute('disabled')));
    const create = page.getByRole('form', { name: 'Create a key' });
    await create.getByLabel('User', { exact: true }).fill('viewer-made@example.com');
    await create.getByRole('button', { name: 'Create key' }).click();
    await page.getByRole('alert').waitFor();
    expect(await page.getByRole('region', { name: 'New key' }).count()).toBe(0);
    const listed = await api(gw.url, 'GET', '/v1/auth/tokens?search=viewer-made');
    expect(listed.json.data).toEqual([]);
    expect(unexpected(errors, [403])).toEqual([]);
  });

  it('ui.readOnly: an admin session sees the data, but writes are refused (403) even when forced', async () => {
    const { page, errors } = await open();
    await logIn(page, readOnly.url, ADMIN);
    expect(await page.locator('#who').textContent()).toContain('read-only');
    await visit(page, 'keys');
    await page.getByText('This console is read-only (ui.readOnly).').waitFor();
    expect(await page.getByRole('button', { name: 'Create key' }).isDisabled()).toBe(true);
    const forced = await page.evaluate(async () => {
      const csrf = document.cookie.match(/(?:^|; )gw_csrf=([^;]*)/)?.[1] ?? '';
      const res = await fetch('/v1/admin/teams', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-csrf-token': csrf },
        body: JSON.stringify({ id: 'forced-team' }),
      });
      return { status: res.status, body: (await res.json()) as any };
    });
    expect(forced.status).toBe(403);
    expect(forced.body.error.message).toMatch(/read-only/);
    await page.evaluate(() => document.querySelectorAll('main button[disabled]').forEach((b: any) => b.removeAttribute('disabled')));
    await page.getByRole('form', { name: 'Create a key' }).getByLabel('User', { exact: true }).fill('ro@example.com');
    await page.getByRole('button', { name: 'Create key' }).click();
    await expect.poll(() => page.getByRole('alert').textContent(), { timeout: WAIT }).toMatch(/read-only/);
    expect((await api(readOnly.url, 'GET', '/v1/auth/tokens?search=ro@example.com')).json.data).toEqual([]);
    // Logging out is not a write the read-only console refuses.
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.locator('h1', { hasText: 'Log in' }).waitFor();
    expect(unexpected(errors, [403])).toEqual([]);
  });

  it('renders every page with no CSP violation, no console error and no uncaught error', async () => {
    const { page, errors } = await open();
    await logIn(page, gw.url, ADMIN);
    for (const p of PAGES) await visit(page, p.path);
    // A CSP violation would be reported here (the detector is checked in console-chromium.test.ts).
    expect(cspViolations(errors)).toEqual([]);
    expect(unexpected(errors)).toEqual([]);
  });

  it('is usable by keyboard alone: log in, skip to the content, and reach every main page from the navigation (a screenshot of each kept under test-artifacts/console/)', async () => {
    const { page, errors } = await open();
    const artifacts = join(ROOT, 'test-artifacts', 'console');
    mkdirSync(artifacts, { recursive: true });
    await page.goto(`${gw.url}/ui/`);
    // The login form takes the focus: type the token and press Enter.
    await page.locator('#login-token').waitFor();
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('login-token');
    await page.keyboard.type(ADMIN);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('h1').textContent(), { timeout: WAIT }).toBe('Overview');
    await page.screenshot({ path: join(artifacts, 'overview.png') });
    const focused = () =>
      page.evaluate(() => ({
        tag: document.activeElement?.tagName,
        page: document.activeElement?.dataset?.page ?? null,
        inMain: !!document.activeElement?.closest('main'),
        cls: document.activeElement?.className ?? '',
      }));
    // The first Tab of the page is the skip link, which moves the focus to the content.
    await page.evaluate(() => (document.activeElement as any)?.blur?.());
    await page.keyboard.press('Tab');
    expect((await focused()).cls).toContain('skip');
    await page.keyboard.press('Enter');
    await expect.poll(async () => (await focused()).inMain).toBe(true);
    // Tab (forward only) to each page's link in turn, and open it with Enter.
    for (const target of PAGES.slice(1)) {
      let reached = false;
      for (let i = 0; i < 80 && !reached; i++) {
        await page.keyboard.press('Tab');
        reached = (await focused()).page === target.path;
      }
      expect(reached, `the ${target.path} link is reachable with Tab`).toBe(true);
      await page.keyboard.press('Enter');
      await page.locator('h1', { hasText: target.title }).waitFor();
      await page.locator(`main ${target.ready}`).first().waitFor();
      expect(await page.locator(`nav a[data-page="${target.path}"]`).getAttribute('aria-current')).toBe('page');
      // The focus is visible where it is (a focus ring, not outline: none).
      const outline = await page.evaluate(() => getComputedStyle(document.activeElement as any).outlineStyle);
      expect(outline).not.toBe('none');
      await page.screenshot({ path: join(artifacts, `${target.path}.png`) });
    }
    expect(unexpected(errors)).toEqual([]);
  });

  it('has no serious or critical accessibility violation (axe-core) on any main page', async () => {
    // axe is injected as an inline script: this context bypasses the CSP (the test above keeps it).
    const { page } = await open({ bypassCSP: true });
    await logIn(page, gw.url, ADMIN);
    const found: string[] = [];
    for (const p of PAGES) {
      await visit(page, p.path);
      if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ path: AXE });
      const results: any = await page.evaluate(() => (window as any).axe.run(document, { resultTypes: ['violations'] }));
      for (const v of results.violations) {
        if (v.impact === 'serious' || v.impact === 'critical') found.push(`${p.path}: ${v.id} (${v.impact}) ${v.nodes.map((n: any) => n.target.join(' ')).join(', ')}`);
      }
    }
    expect(found).toEqual([]);
    // The login page too.
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.locator('h1', { hasText: 'Log in' }).waitFor();
    const login: any = await page.evaluate(() => (window as any).axe.run(document, { resultTypes: ['violations'] }));
    expect(login.violations.filter((v: any) => v.impact === 'serious' || v.impact === 'critical').map((v: any) => v.id)).toEqual([]);
  });

  it('a page still loading when the user moves on never draws into the next page, nor opens its live stream', async () => {
    const { page, errors } = await open();
    await logIn(page, gw.url, ADMIN);
    await visit(page, 'keys');
    // Hold the Overview's usage report and the Live page's list until the user is elsewhere.
    const held: Route[] = [];
    const HELD = /\/v1\/admin\/(usage|requests)\?/;
    await context!.route(HELD, (route) => void held.push(route));
    const streams: string[] = [];
    page.on('request', (r) => r.url().includes('/v1/admin/requests/stream') && streams.push(r.url()));
    await page.evaluate(() => (location.hash = '#/overview'));
    await page.locator('h1', { hasText: 'Overview' }).waitFor();
    await expect.poll(() => held.length, { timeout: WAIT }).toBe(2); // the usage report and the recent requests
    await page.evaluate(() => (location.hash = '#/requests'));
    await page.locator('h1', { hasText: 'Live requests' }).waitFor();
    await expect.poll(() => held.length, { timeout: WAIT }).toBe(3);
    await visit(page, 'keys');
    const finished = held.map((route) => page.waitForEvent('requestfinished', { predicate: (r) => r === route.request() }));
    for (const route of held) await route.continue();
    await Promise.all(finished);
    await context!.unroute(HELD);
    // Let the page run what those answers started (a frame and a task after the last body arrived).
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0))));
    // The answers arrived after the user moved on: the Keys page is alone in <main>, and no stream opened.
    await page.locator('table[aria-label="Keys"]').waitFor();
    expect(await page.locator('main h1').allTextContents()).toEqual(['Keys']);
    expect(await page.locator('main figure, main .cards, main table[aria-label="Recent requests"]').count()).toBe(0);
    expect(streams).toEqual([]);
    expect(unexpected(errors)).toEqual([]);
  });

  it('pages through the keys list and searches on the server', async () => {
    for (let i = 0; i < 30; i++) {
      expect((await api(gw.url, 'POST', '/v1/auth/tokens', { user: `pager-${String(i).padStart(2, '0')}@example.com` })).status).toBe(201);
    }
    const { page, errors } = await open();
    await logIn(page, gw.url, ADMIN);
    await visit(page, 'keys');
    const users = () => page.locator('table[aria-label="Keys"] tbody tr td:nth-child(3)').allTextContents();
    // The list drawn before the search is marked: the rows below are the search's, drawn after.
    await page.locator('table[aria-label="Keys"]').evaluate((t: any) => (t.dataset.before = 'search'));
    const searched = page.waitForRequest((r) => r.url().includes('/v1/auth/tokens?') && new URL(r.url()).searchParams.get('search') === 'pager-');
    await page.getByRole('searchbox', { name: 'Search keys' }).fill('pager-');
    await page.getByRole('search').getByRole('button', { name: 'Search' }).click();
    await searched;
    await page.locator('table[aria-label="Keys"]:not([data-before])').waitFor();
    const pager = page.getByRole('navigation', { name: 'Keys pages' });
    await expect.poll(users, { timeout: WAIT }).toHaveLength(10);
    const pages: string[][] = [];
    for (let n = 1; n <= 3; n++) {
      await pager.getByText(`Page ${n}`).waitFor();
      // The rows of page n: none of the page before, all from the search.
      await expect.poll(async () => (await users()).every((u) => u.startsWith('pager-') && !pages.flat().includes(u)), { timeout: WAIT }).toBe(true);
      pages.push(await users());
      if (n < 3) await pager.getByRole('button', { name: 'Next' }).click();
    }
    expect(new Set(pages.flat()).size).toBe(30);
    expect(await pager.getByRole('button', { name: 'Next' }).isDisabled()).toBe(true);
    await pager.getByRole('button', { name: 'Previous' }).click();
    await pager.getByText('Page 2').waitFor();

    // Oldest first (the newest-first list backwards), then a search that narrows to one key (asked of the server).
    await page.getByRole('combobox', { name: 'Order' }).selectOption('asc');
    await page.getByRole('search').getByRole('button', { name: 'Search' }).click();
    await pager.getByText('Page 1').waitFor();
    await expect.poll(users, { timeout: WAIT }).toEqual([...pages[2]!].reverse());
    const narrowed = page.waitForRequest((r) => new URL(r.url()).searchParams.get('search') === 'pager-07@');
    await page.getByRole('searchbox', { name: 'Search keys' }).fill('pager-07@');
    await page.getByRole('search').getByRole('button', { name: 'Search' }).click();
    await narrowed;
    await expect.poll(users, { timeout: WAIT }).toEqual(['pager-07@example.com']);
    expect(await pager.getByRole('button', { name: 'Next' }).isDisabled()).toBe(true);
    expect(unexpected(errors)).toEqual([]);
  });

  it('Tool servers: pages through a server’s tools (next, previous) and searches them on the server', async () => {
    const { page, errors } = await open();
    await logIn(page, gw.url, ADMIN);
    await eventually(async () => (await api(gw.url, 'GET', '/v1/admin/mcp/servers')).json.data[0]?.tools_total === 51, WAIT, 'the tool server listed its tools');
    await visit(page, 'tools');
    const table = page.locator('table[aria-label="Tools of bulk"]');
    const tools = () => table.locator('tbody tr td:nth-child(1)').allTextContents();
    const pager = page.getByRole('navigation', { name: 'Tools of bulk pages' });
    const bulk = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `bulk_${String(from + i).padStart(3, '0')}`);
    await expect.poll(tools, { timeout: WAIT }).toEqual(['add-tool', ...bulk(0, 19)]);
    expect(await page.locator('main').textContent()).toContain('51 tools');
    await pager.getByRole('button', { name: 'Next' }).click();
    await pager.getByText('Page 2').waitFor();
    await expect.poll(tools, { timeout: WAIT }).toEqual(bulk(19, 39));
    await pager.getByRole('button', { name: 'Next' }).click();
    await pager.getByText('Page 3').waitFor();
    await expect.poll(tools, { timeout: WAIT }).toEqual([...bulk(39, 45), 'crash', 'echo', 'env', 'list-count', 'whoami']);
    expect(await pager.getByRole('button', { name: 'Next' }).isDisabled()).toBe(true);
    await pager.getByRole('button', { name: 'Previous' }).click();
    await pager.getByText('Page 2').waitFor();
    await expect.poll(tools, { timeout: WAIT }).toEqual(bulk(19, 39));

    // A search (any case) is asked of the server and starts again from its first page.
    const searched = page.waitForRequest((r) => r.url().includes('/v1/admin/mcp/servers/bulk/tools?') && new URL(r.url()).searchParams.get('search') === 'BULK_04');
    await page.getByRole('searchbox', { name: 'Search the tools of bulk' }).fill('BULK_04');
    await page.getByRole('search', { name: 'Search the tools of bulk' }).getByRole('button', { name: 'Search' }).click();
    await searched;
    await pager.getByText('Page 1').waitFor();
    await expect.poll(tools, { timeout: WAIT }).toEqual(bulk(40, 45));
    expect(await page.getByRole('status').filter({ hasText: 'match' }).textContent()).toContain('5 of 51 tools match');
    expect(await pager.getByRole('button', { name: 'Next' }).isDisabled()).toBe(true);
    expect(unexpected(errors)).toEqual([]);
  });

  it('a key made in the UI works at once with the openai SDK; the team budget bar moves; file objects cannot be edited', async () => {
    const { page, errors } = await open();
    await logIn(page, gw.url, ADMIN);
    await visit(page, 'budgets');
    const bar = page.locator('progress[aria-label^="team search"]');
    const spent = async () => Number(await bar.getAttribute('value'));
    const before = await spent();
    await page.locator('tr', { hasText: 'team: search' }).getByText('config file (read-only)').waitFor();

    await visit(page, 'keys');
    const create = page.getByRole('form', { name: 'Create a key' });
    await create.getByLabel('User', { exact: true }).fill('sdk@example.com');
    await create.getByLabel('Team', { exact: true }).fill('search');
    await create.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.getByRole('region', { name: 'New key' }).locator('code[data-secret]').textContent())!;
    const client = new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    // 100 prompt and 200 completion tokens at the catalogue's price: $0.25, half the team's $0.50.
    const usage = { prompt_tokens: 100, completion_tokens: 200, total_tokens: 300 };
    const priced = {
      id: 'c1',
      object: 'chat.completion',
      created: 1,
      model: 'gpt-4o-mini',
      choices: [{ index: 0, message: { role: 'assistant', content: 'priced' }, finish_reason: 'stop' }],
      usage,
    };
    upstream.on(UPSTREAM_CHAT, { json: priced });
    let answer: OpenAI.Chat.Completions.ChatCompletion;
    try {
      answer = await client.chat.completions.create({ model: 'chat', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 250 });
    } finally {
      upstream.on(UPSTREAM_CHAT, answers('hello from upstream'));
    }
    expect(answer.choices[0]!.message.content).toBe('priced');
    expect(upstream.requests.at(-1)!.headers.authorization).toBe('Bearer sk-held-browser-0001');

    // The usage ledger writes in batches: revisit the budgets page until the bar has moved.
    await expect
      .poll(
        async () => {
          await visit(page, 'overview');
          await visit(page, 'budgets');
          return spent();
        },
        { timeout: WAIT, interval: 500 },
      )
      .toBeGreaterThanOrEqual(before + 50);

    // The file's team: shown read-only, no delete button; forced, the API refuses (409) and it stays.
    await visit(page, 'tenants');
    const team = page.locator('table[aria-label="teams"] tr', { hasText: 'search' }).first();
    await team.getByText('config file (read-only)').waitFor();
    expect(await team.getByRole('button', { name: 'Delete' }).count()).toBe(0);
    const forced = await page.evaluate(async () => {
      const csrf = document.cookie.match(/(?:^|; )gw_csrf=([^;]*)/)?.[1] ?? '';
      const res = await fetch('/v1/admin/teams/search', { method: 'DELETE', headers: { 'x-csrf-token': csrf } });
      return { status: res.status, body: (await res.json()) as any };
    });
    expect(forced.status).toBe(409);
    expect(forced.body.error.message).toMatch(/config file/);
    await visit(page, 'overview');
    await visit(page, 'tenants');
    await page.locator('table[aria-label="teams"] tr', { hasText: 'search' }).first().waitFor();
    expect(unexpected(errors, [409])).toEqual([]);
  });

  it('Config: shows the pipelines per route, validates a change through the API, and shows why a reload is refused', async () => {
    const { page, errors } = await open();
    await logIn(page, gw.url, ADMIN);
    await visit(page, 'config');
    const pipelines = page.locator('table[aria-label="Pipelines"] tr', { hasText: 'admin-config' });
    expect(await pipelines.first().textContent()).toContain('POST /v1/admin/config/validate');
    await page.getByLabel('Config (YAML or JSON)').fill('server:\n  port: not-a-port\n');
    await page.getByRole('button', { name: 'Validate' }).click();
    const problems = page.locator('ul[aria-label="Problems"] li');
    await problems.first().waitFor();
    expect(await problems.first().textContent()).toMatch(/^server\.port/);
    await page.getByLabel('Config (YAML or JSON)').fill('ui:\n  enabled: true\n');
    await page.getByRole('button', { name: 'Validate' }).click();
    await page.locator('#config-result', { hasText: 'The config is valid' }).waitFor();
    // This gateway runs in-process, not from a file: the API refuses the reload (409) and the page says why.
    await page.getByRole('button', { name: 'Reload the config file' }).click();
    await page.locator('#reload-result [role="alert"]', { hasText: 'not started from a config file' }).waitFor();
    expect(unexpected(errors, [409])).toEqual([]);
  });

  it('Credentials: tests a held credential from its button (ok, status, latency), never showing the key', async () => {
    upstream.on('GET /v1/models', { json: { object: 'list', data: [{ id: 'gpt-4o-mini' }] } });
    const { page, errors } = await open();
    await logIn(page, gw.url, ADMIN);
    await visit(page, 'credentials');
    upstream.requests.length = 0;
    await page.getByRole('button', { name: 'Test openai-prod' }).click();
    const result = page.locator('[data-test-result="openai-prod"]');
    await expect.poll(() => result.textContent(), { timeout: WAIT }).toMatch(/ok 200 · \d+ ms · 1 model$/);
    expect(upstream.received('GET /v1/models')[0]!.headers.authorization).toBe('Bearer sk-held-browser-0001');
    expect(await page.content()).not.toContain('sk-held-browser-0001');
    expect(unexpected(errors)).toEqual([]);
  });

  it('shows a request made through the gateway in Live requests', async () => {
    const { page, errors } = await open();
    await logIn(page, gw.url, ADMIN);
    await visit(page, 'requests');
    const answer = await post(gw.url, CHAT, chatBody(), { 'x-gateway-provider': 'openai', authorization: 'Bearer sk-caller', 'x-gateway-token': PLAIN_KEY });
    expect(answer.status).toBe(200);
    const requestId = String(answer.headers['x-gateway-request-id']);
    // The ledger writes in batches: poll until the row arrives over server-sent events.
    const row = page.locator(`tr[data-request-id="${requestId}"]`);
    await row.waitFor({ timeout: WAIT });
    const cells = await row.locator('td').allTextContents();
    expect(cells[2]).toBe('gpt-4o-mini');
    expect(cells[3]).toBe('openai');
    expect(cells[4]).toBe('200');
    expect(cells[6]).toBe('5 / 7');
    expect(cells[7]).toMatch(/^\$0\.0*[1-9]/); // its cost (a fraction of a cent), not rounded to $0.0000
    expect(await page.content()).not.toContain(PLAIN_KEY);
    // Its detail (GET /v1/admin/requests/{id}) with its attempts, opened from the keyboard.
    await row.getByRole('button', { name: `Details of request ${requestId}` }).focus();
    await page.keyboard.press('Enter');
    const detail = page.locator(`section[data-detail-id="${requestId}"]`);
    await detail.waitFor();
    const attempts = await detail.locator('table[aria-label="Attempts"] tbody tr td').allTextContents();
    expect(attempts.slice(0, 2)).toEqual(['1', 'openai']);
    expect(attempts[3]).toBe('200');
    expect(attempts[5]).toBe('—');
    expect(await detail.textContent()).toContain('bodies are not kept');
    // Focus moved to the detail; Close returns it to the row's button.
    expect(await page.evaluate(() => document.activeElement?.closest('section')?.dataset.detailId)).toBe(requestId);
    await detail.getByRole('button', { name: 'Close' }).click();
    await expect.poll(() => detail.count()).toBe(0);
    expect(unexpected(errors)).toEqual([]);

    if (SCREENSHOTS) {
      const docs = join(ROOT, 'docs');
      mkdirSync(docs, { recursive: true });
      await page.screenshot({ path: join(docs, 'console-live.png') });
      await visit(page, 'overview');
      await page.screenshot({ path: join(docs, 'console-overview.png') });
      await visit(page, 'keys');
      await page.screenshot({ path: join(docs, 'console-keys.png') });
    }
  });
});
