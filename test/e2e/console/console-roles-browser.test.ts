// The console as a viewer and as a team_admin, in Debian's chromium (playwright-core): what it
// offers matches what the admin API lets the role do (no write button the API always refuses), a
// refusal forced past the UI is shown to the user, and no credential stays in the page or storage.
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildConsole } from '../../helpers/console-build.js';
import { CHROMIUM, CHROMIUM_FLAGS as FLAGS } from '../../helpers/chromium.js';
import { CONSOLE_PAGES } from '../../helpers/console-pages.js';
import { issueKey } from '../../helpers/gateway-keys.js';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';

// The callbacks given to page.evaluate run in the page: its globals, for the type checker.
declare const document: any, location: any, localStorage: any, sessionStorage: any;

const ADMIN = 'admin-token-console-roles-0123456789abcdef';
const WAIT = 20_000;

/** The enabled and disabled buttons of the page's main area, by their text (and aria-label when set). */
async function buttons(page: Page): Promise<{ enabled: string[]; disabled: string[] }> {
  return page.evaluate(() => {
    const all = [...document.querySelectorAll('main button')] as any[];
    const label = (b: any) => b.getAttribute('aria-label') ?? b.textContent.trim();
    return { enabled: all.filter((b) => !b.disabled).map(label), disabled: all.filter((b) => b.disabled).map(label) };
  });
}

describe('the console for a viewer and a team_admin (playwright-core + Debian chromium)', { timeout: 180_000 }, () => {
  let browser: Browser;
  let gw: TestGateway;
  let context: BrowserContext | undefined;
  let viewer: { id: string; token: string };
  let lead: { id: string; token: string };

  beforeAll(async () => {
    buildConsole();
    gw = await startGateway({
      logging: { level: 'warn' },
      ui: { enabled: true },
      auth: { adminToken: ADMIN },
      tenants: { organizations: { acme: {} }, teams: { search: { organization: 'acme' }, ads: { organization: 'acme' } } },
      budgets: { team: { search: { limit_usd: 5, window: { period: 'month' } } } },
    });
    viewer = await issueKey(gw.url, ADMIN, { user: 'vera@example.com', roles: ['viewer'] });
    lead = await issueKey(gw.url, ADMIN, { user: 'tess@example.com', team: 'search', roles: ['team_admin'] });
    await issueKey(gw.url, ADMIN, { user: 'sam@example.com', team: 'search' });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS, timeout: 60_000 });
  });
  afterEach(async () => {
    await context?.close();
    context = undefined;
  });
  afterAll(async () => {
    await browser?.close();
    await gw?.close();
  });

  async function logIn(token: string): Promise<Page> {
    context = await browser.newContext();
    context.setDefaultTimeout(WAIT);
    const page = await context.newPage();
    await page.goto(`${gw.url}/ui/`);
    await page.getByLabel('Admin token or a gateway key with an admin role').fill(token);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.locator('h1', { hasText: 'Overview' }).waitFor();
    return page;
  }

  async function visit(page: Page, path: string, ready: string): Promise<void> {
    const target = CONSOLE_PAGES.find((p) => p.path === path)!;
    await page.evaluate((p) => (location.hash = `#/${p}`), path);
    await page.locator('h1', { hasText: target.title }).waitFor();
    await page.locator(`main ${ready}`).first().waitFor();
  }

  /** Neither the credential used to log in nor any gwt_ value in the page, and nothing in the browser's storage. */
  async function noSecretKept(page: Page, token: string): Promise<void> {
    const html = await page.content();
    expect(html).not.toContain(token);
    expect(html).not.toContain(ADMIN);
    const stored = await page.evaluate(() => ({ local: localStorage.length, session: sessionStorage.length, cookie: document.cookie }));
    expect(stored.local).toBe(0);
    expect(stored.session).toBe(0);
    // Only the CSRF token is readable by the page: the session cookie is HttpOnly.
    expect(stored.cookie).toMatch(/^gw_csrf=[^;]+$/);
  }

  it('a viewer: every write button is off on every page, and the Budgets page shows spend (a viewer reads the usage report)', async () => {
    const page = await logIn(viewer.token);
    for (const [path, ready] of [
      ['keys', 'table[aria-label="Keys"]'],
      ['tenants', 'table[aria-label="users"]'],
      ['credentials', '[role="alert"]'],
    ] as const) {
      await visit(page, path, ready);
      const { enabled } = await buttons(page);
      expect(
        enabled.filter((b) => !['Search', 'Next', 'Previous', 'Log out'].includes(b)),
        path,
      ).toEqual([]);
    }
    await visit(page, 'budgets', 'table[aria-label="Budgets"]');
    expect(await page.locator('main [role="status"]').count()).toBe(0);
    expect(await page.locator('progress[aria-label^="team search:"]').count()).toBe(1);
    await noSecretKept(page, viewer.token);
  });

  it('a team_admin: offered only its team’s writes (users, keys), which work; an admin-only write forced past the UI is refused and shown', async () => {
    const page = await logIn(lead.token);
    expect(await page.locator('#who').textContent()).toContain('team_admin');

    // Organisations and teams are the admin's: no Add or Delete; its users: Add works, in its team.
    await visit(page, 'tenants', 'table[aria-label="users"]');
    await page.getByText('manages the users, keys and budgets of the team search').waitFor();
    const section = (name: string) => page.getByRole('region', { name });
    for (const name of ['Organisations', 'Teams']) {
      expect(await section(name).getByRole('button', { name: 'Add' }).isDisabled(), name).toBe(true);
      for (const del of await section(name).getByRole('button', { name: 'Delete' }).all()) expect(await del.isDisabled(), name).toBe(true);
    }
    const users = section('Users');
    expect(await users.getByRole('button', { name: 'Add' }).isEnabled()).toBe(true);
    await users.getByRole('form', { name: 'Add to users' }).getByLabel('Id').fill('newbie@example.com');
    await users.getByRole('button', { name: 'Add' }).click();
    await users.locator('tr', { hasText: 'newbie@example.com' }).waitFor();
    expect(await users.locator('tr', { hasText: 'newbie@example.com' }).textContent()).toContain('search');

    // Forced past the UI (the button enabled by hand): the API's refusal is shown, nothing is made.
    await page.evaluate(() => document.querySelectorAll('main section[aria-label="Teams"] button[disabled]').forEach((b: any) => b.removeAttribute('disabled')));
    await section('Teams').getByRole('form', { name: 'Add to teams' }).getByLabel('Id').fill('rogue');
    await section('Teams').getByRole('button', { name: 'Add' }).click();
    await section('Teams').getByRole('alert').waitFor();
    expect(await section('Teams').getByRole('alert').textContent()).toMatch(/team_admin/);
    expect((await fetch(`${gw.url}/v1/admin/teams/rogue`, { headers: { authorization: `Bearer ${ADMIN}` } })).status).toBe(404);

    // Keys: its team, fixed; no role beyond its own to give; a key made here is its team's.
    await visit(page, 'keys', 'table[aria-label="Keys"]');
    const create = page.getByRole('form', { name: 'Create a key' });
    expect(await create.getByLabel('Team', { exact: true }).inputValue()).toBe('search');
    expect(await create.getByLabel('Team', { exact: true }).getAttribute('readonly')).not.toBeNull();
    expect(await create.getByLabel('Admin role').locator('option').allTextContents()).toEqual(['none', 'team_admin']);
    await create.getByLabel('User', { exact: true }).fill('made-by-lead@example.com');
    await create.getByRole('button', { name: 'Create key' }).click();
    await page.getByRole('region', { name: 'New key' }).waitFor();
    await page.getByRole('button', { name: 'Done' }).click();
    await page.locator('tr', { hasText: 'made-by-lead@example.com' }).waitFor();
    expect(await page.locator('tr', { hasText: 'made-by-lead@example.com' }).textContent()).toContain('search');
    expect(await create.getByLabel('Team', { exact: true }).inputValue()).toBe('search');

    // Credentials and the config are the admin's: the refusal is shown and nothing is offered.
    await visit(page, 'credentials', '[role="alert"]');
    expect(await page.getByRole('button', { name: 'Add' }).isDisabled()).toBe(true);
    await visit(page, 'config', '[role="alert"]');
    await noSecretKept(page, lead.token);
  });
});
