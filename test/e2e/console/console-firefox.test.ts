// The admin console in Firefox: Debian's firefox-esr driven by puppeteer-core over WebDriver BiDi
// (no browser download; .ci/run installs the package when it is missing). The Chromium suite
// (console-browser.test.ts) covers every flow; this one checks that the same app runs in the
// other engine the issue names: log in, make a key, every main page drawn with its data, no
// Content-Security-Policy violation, no console error and no uncaught error.
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildConsole } from '../../helpers/console-build.js';
import { CONSOLE_PAGES } from '../../helpers/console-pages.js';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';

// The callbacks given to page.evaluate run in the page: its globals, for the type checker (the tests' lib has no DOM).
declare const document: any, window: any, location: any;

const FIREFOX = process.env.FIREFOX_PATH ?? '/usr/bin/firefox-esr';
const ADMIN = 'admin-token-firefox-0001-0123456789abcdef';
/** Waits in a browser under load (2 shared cores): generous, never a timing assertion. */
const WAIT = 20_000;

/** Content-Security-Policy violations, as the page's own securitypolicyviolation events report them (any engine). */
function recordViolations(): void {
  document.addEventListener('securitypolicyviolation', (e: any) => (window.__violations ??= []).push(`${e.violatedDirective} ${e.blockedURI}`));
}

interface Watched {
  page: Page;
  errors: string[];
}

describe('the console in Firefox (puppeteer-core + Debian firefox-esr)', { timeout: 240_000 }, () => {
  let browser: Browser;
  let gw: TestGateway;

  beforeAll(async () => {
    buildConsole();
    gw = await startGateway({
      logging: { level: 'warn' },
      ui: { enabled: true },
      auth: { adminToken: ADMIN },
      secrets: { key: 'cd'.repeat(32) },
      credentials: { 'openai-prod': { provider: 'openai', api_key: 'sk-held-firefox-0001' } },
      models: { chat: { targets: [{ provider: 'openai', model: 'gpt-4o-mini', credential: 'openai-prod' }], price: { input: '0.0005', output: '0.001' } } },
      tenants: { teams: { search: {} } },
      budgets: { team: { search: { limit_usd: 0.5, window: { period: 'month' } } } },
    });
    browser = await puppeteer.launch({ browser: 'firefox', executablePath: FIREFOX, headless: true, timeout: 90_000 });
  });
  afterAll(async () => {
    await browser?.close();
    await gw?.close();
  });

  async function open(): Promise<Watched> {
    const page = await browser.newPage();
    page.setDefaultTimeout(WAIT);
    await page.setViewport({ width: 1280, height: 900 });
    const errors: string[] = [];
    page.on('console', (msg) => {
      if (msg.type() === 'error' || msg.type() === 'warn') errors.push(`console: ${msg.text()}`);
    });
    page.on('pageerror', (err) => errors.push(`pageerror: ${(err as Error).message}`));
    await page.evaluateOnNewDocument(recordViolations);
    return { page, errors };
  }

  const heading = (page: Page) => page.$eval('main h1', (h: any) => h.textContent as string).catch(() => '');

  async function logIn(page: Page): Promise<void> {
    await page.goto(`${gw.url}/ui/`);
    await page.waitForSelector('#login-token');
    await page.type('#login-token', ADMIN);
    await page.click('main form button[type="submit"]');
    await expect.poll(() => heading(page), { timeout: WAIT }).toBe('Overview');
  }

  it('catches a CSP violation when a page has one (the check below can fail)', async () => {
    const { page } = await open();
    // An inline script, which the console's policy (script-src 'self') refuses.
    await page.goto(`${gw.url}/ui/`);
    await page.waitForSelector('#login-token');
    await page.evaluate(() => {
      const s = document.createElement('script');
      s.textContent = 'window.__ran = true';
      document.body.append(s);
    });
    await expect.poll(() => page.evaluate(() => (window.__violations ?? []).length), { timeout: WAIT }).toBeGreaterThan(0);
    expect(await page.evaluate(() => window.__ran === true)).toBe(false);
    await page.close();
  });

  it('logs in, makes a key (shown once), and draws every main page with no CSP violation, console error or uncaught error', async () => {
    const { page, errors } = await open();
    await logIn(page);
    expect(await page.content()).not.toContain(ADMIN);

    // A key made through the form: its secret shown once, in the New key region.
    await page.evaluate(() => (location.hash = '#/keys'));
    await page.waitForSelector('main table[aria-label="Keys"]');
    const field = (label: string) => `xpath/.//form[@aria-label="Create a key"]//label[starts-with(normalize-space(), "${label}")]//input`;
    await (await page.waitForSelector(field('User')))!.type('fox@example.com');
    await (await page.waitForSelector(field('Name')))!.type('firefox key');
    await (await page.waitForSelector('xpath/.//form[@aria-label="Create a key"]//button[normalize-space()="Create key"]'))!.click();
    const secret = await page.waitForSelector('[aria-label="New key"] code[data-secret]');
    const full = (await secret!.evaluate((c: any) => c.textContent as string))!;
    expect(full).toMatch(/^gwt_[A-Za-z0-9_-]{20,}$/);
    await (await page.waitForSelector('xpath/.//*[@aria-label="New key"]//button[normalize-space()="Done"]'))!.click();
    await page.waitForFunction((masked: string) => document.body.innerText.includes(masked), { timeout: WAIT }, `gwt_…${full.slice(-4)}`);
    expect(await page.content()).not.toContain(full);

    for (const p of CONSOLE_PAGES) {
      await page.evaluate((path: string) => (location.hash = `#/${path}`), p.path);
      await expect.poll(() => heading(page), { timeout: WAIT }).toBe(p.title);
      await page.waitForFunction(
        (ready: string, text: string) => [...document.querySelectorAll(`main ${ready}`)].some((el: any) => el.textContent.includes(text)),
        { timeout: WAIT },
        p.ready,
        p.readyText ?? '',
      );
    }
    expect(await page.evaluate(() => window.__violations ?? [])).toEqual([]);
    // Before login the app asks whether a session exists (401): the only error a fresh page may log.
    expect(errors.filter((e) => !/401/.test(e))).toEqual([]);
    await page.close();
  });
});
