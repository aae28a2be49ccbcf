import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildConsole } from '../../helpers/console-build.js';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';
import { CHROMIUM, CHROMIUM_FLAGS as FLAGS } from '../../helpers/chromium.js';

/** Loads `url` in a fresh headless Chromium profile: the DOM once the page settled, and what the page wrote to its console. */
function load(url: string): Promise<{ dom: string; console: string[] }> {
  const profile = mkdtempSync(join(tmpdir(), 'gw-chromium-'));
  return new Promise((resolve, reject) => {
    const child = spawn(CHROMIUM, [...FLAGS, `--user-data-dir=${profile}`, '--enable-logging=stderr', '--log-level=0', '--virtual-time-budget=5000', '--dump-dom', url], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let dom = '';
    let log = '';
    child.stdout.on('data', (d: Buffer) => (dom += d.toString()));
    child.stderr.on('data', (d: Buffer) => (log += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', () => {
      clearTimeout(timer);
      rmSync(profile, { recursive: true, force: true });
      resolve({ dom, console: log.split('\n').filter((l) => l.includes(':CONSOLE')) });
    });
  });
}

const violations = (lines: string[]) => lines.filter((l) => /Content Security Policy|Refused to/i.test(l));

describe('the console in headless Chromium (Debian package)', { timeout: 180_000 }, () => {
  let gw: TestGateway;
  beforeAll(async () => {
    buildConsole();
    gw = await startGateway({ logging: { level: 'warn' }, ui: { enabled: true }, auth: { adminToken: 'admin-token-chromium-0001-0123456789abcdef' } });
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('sees a CSP violation when a page has one (the check below can fail)', async () => {
    const page = `data:text/html,<meta http-equiv="Content-Security-Policy" content="default-src 'self'"><p id=x>static</p><script>document.title='inline'</script>`;
    const { console: lines } = await load(page);
    expect(violations(lines).length).toBeGreaterThan(0);
  });

  it('runs the app (ES modules from /ui) under the gateway CSP: the login form, and no CSP violation', async () => {
    // Polled: the page renders the form once its session check (a fetch) has answered.
    let seen = { dom: '', console: [] as string[] };
    for (let i = 0; i < 3 && !seen.dom.includes('aria-label="Log in"'); i++) seen = await load(`${gw.url}/ui/#/keys`);
    expect(seen.dom).toContain('<h1>Log in</h1>');
    expect(seen.dom).toMatch(/<input type="password" name="token"/);
    expect(violations(seen.console)).toEqual([]);
  });
});
