import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildConfig } from '../../../src/kernel/config/load-config.js';
import { createGateway, type Gateway } from '../../../src/gateway.js';
import { LogCollector } from '../../helpers/start-gateway.js';
import { exposureWarnings, isLoopbackHost } from '../../../src/features/auth/exposure.js';

/** The gateway warns when it serves routes without authentication on an address other than loopback. */
describe('serving without authentication beyond loopback', () => {
  const open: Array<{ gw: Gateway; dir: string }> = [];
  afterEach(async () => {
    for (const { gw, dir } of open.splice(0)) {
      await gw.close(500);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  async function listenOn(host: string, raw: Record<string, unknown>): Promise<LogCollector> {
    const dir = mkdtempSync(join(tmpdir(), 'gw-exposure-'));
    const logs = new LogCollector();
    const gw = await createGateway(buildConfig({ logging: { level: 'warn' }, ...raw }, 't', { env: { GATEWAY_DATA_DIR: dir } }), { logDestination: logs });
    open.push({ gw, dir });
    await gw.listen(0, host);
    return logs;
  }

  it('on all interfaces with auth off: one warning for provider routes, one for /mcp (with tool servers)', async () => {
    const logs = await listenOn('0.0.0.0', { mcpServers: { t: { url: 'http://127.0.0.1:9/mcp' } }, providers: { groq: { apiKey: 'gsk-held-by-the-gateway-01' } } });
    const warnings = logs.records().filter((r) => r.level === 40 && r.host === '0.0.0.0');
    expect(warnings.map((w) => w.msg)).toEqual([
      expect.stringMatching(/^provider routes are served without authentication on 0\.0\.0\.0: .*\(groq\).*auth\.providerRoutes/),
      expect.stringMatching(/^\/mcp is served without authentication on 0\.0\.0\.0: .*auth\.enabled/),
    ]);
    expect(logs.text).not.toContain('gsk-held-by-the-gateway-01');
  });

  it('on loopback, or with authentication everywhere, no warning', async () => {
    const local = await listenOn('127.0.0.1', {});
    expect(local.records().filter((r) => r.level === 40)).toEqual([]);
    const secured = await listenOn('0.0.0.0', { auth: { enabled: true, type: 'bearer', providerRoutes: true, adminToken: 'exposure-admin-token-0123456789abcdef' } });
    expect(secured.records().filter((r) => r.level === 40 && /without authentication/.test(r.msg))).toEqual([]);
  });

  it('knows loopback addresses', () => {
    for (const h of ['127.0.0.1', '127.0.0.2', '::1', '[::1]', 'localhost', '::ffff:127.0.0.1']) expect(isLoopbackHost(h), h).toBe(true);
    for (const h of ['0.0.0.0', '::', '10.0.0.5', 'gateway.example.com']) expect(isLoopbackHost(h), h).toBe(false);
    expect(exposureWarnings({}, '::')).toHaveLength(1);
  });
});
