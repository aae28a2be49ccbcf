import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeUpstream } from '../../helpers/fake-upstream.js';
import { fixtureJson } from '../../helpers/fixtures.js';
import { freePort, spawnGateway, waitForHealth, type GatewayProcess } from '../../helpers/built-gateway.js';

const KEY = 'cfg-ledger-shutdown-key-0123456789abcdef';

/**
 * The usage ledger is written off the request path, in batches: rows of requests that finish
 * while the gateway drains after SIGTERM are all in the store once it has exited.
 */
describe('the usage ledger at shutdown (built gateway)', { timeout: 120_000 }, () => {
  let dir: string;
  let upstream: FakeUpstream;
  let release!: () => void;
  let proc: GatewayProcess | undefined;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gw-ledger-'));
    const released = new Promise<void>((resolve) => (release = resolve));
    const answer = fixtureJson('anthropic', 'text') as Record<string, unknown>;
    upstream = await new FakeUpstream()
      .on('POST /v1/messages', async (_req, res) => {
        await released;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ ...answer, model: 'claude-opus-4-5' }));
      })
      .start();
  }, 240_000);
  afterAll(async () => {
    proc?.kill();
    await upstream?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('SIGTERM with requests in flight: every request gets its row, priced from the shipped table', async () => {
    const port = await freePort();
    const db = join(dir, 'gateway.db');
    const config = join(dir, 'gateway.yaml');
    writeFileSync(
      config,
      [
        'server:',
        '  host: 127.0.0.1',
        'storage:',
        '  type: sqlite',
        `  path: ${db}`,
        'providers:',
        '  anthropic:',
        `    baseUrl: ${upstream.url}`,
        'auth:',
        '  apiKeys:',
        `    - key: ${KEY}`,
        '      user: ann@example.com',
        '      team: search',
        '',
      ].join('\n'),
    );
    proc = spawnGateway(['--config', config], { env: { GATEWAY_PORT: String(port), GATEWAY_DATA_DIR: dir } });
    const url = `http://127.0.0.1:${port}`;
    await waitForHealth(url, proc, 60_000);
    const n = 12;
    const answers = Array.from({ length: n }, () =>
      fetch(`${url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-gateway-provider': 'anthropic', 'x-api-key': 'sk-ant-caller', 'x-gateway-token': KEY },
        body: JSON.stringify({ model: 'claude-opus-4-5', max_tokens: 50, messages: [{ role: 'user', content: 'Hi' }] }),
      }),
    );
    while (upstream.requests.length < n) await new Promise((r) => setTimeout(r, 20));
    process.kill(proc.child.pid!, 'SIGTERM');
    await new Promise((r) => setTimeout(r, 100));
    release();
    const results = await Promise.all(answers);
    expect(results.map((r) => r.status)).toEqual(Array(n).fill(200));
    const costs = results.map((r) => r.headers.get('x-gateway-cost'));
    const exit = await proc.exited;
    expect(exit.code).toBe(0);
    const rows = new Database(db, { readonly: true }).prepare('SELECT * FROM gateway_usage').all() as any[];
    expect(rows.length).toBe(n);
    expect(new Set(rows.map((r) => r.request_id))).toEqual(new Set(results.map((r) => r.headers.get('x-gateway-request-id'))));
    for (const row of rows) {
      expect(row).toMatchObject({ user_id: 'ann@example.com', team: 'search', provider: 'anthropic', model: 'claude-opus-4-5', input_tokens: 31, output_tokens: 12, status: 200 });
      expect(costs).toContain(`0.${String(row.cost_micros).padStart(6, '0')}`);
      expect(row.price_source).toContain('claude.com');
    }
  });
});
