import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'undici';
import { FakeUpstream } from '../../helpers/fake-upstream.js';
import { freePort, spawnGateway, waitForHealth, type GatewayProcess } from '../../helpers/built-gateway.js';
import { logRecords } from '../../helpers/npm-start.js';

const CHAT = { model: 'm', messages: [{ role: 'user', content: 'hi' }] };
const HEADERS = { 'content-type': 'application/json', 'x-gateway-provider': 'openai', authorization: 'Bearer sk-workers-circuit-0001' };

/** `server.workers: 2` with circuit breakers: a circuit one worker opens is open in the other worker too. */
describe('circuit states shared by the workers of a cluster', { timeout: 180_000 }, () => {
  let dir: string;
  let upstream: FakeUpstream;
  let proc: GatewayProcess | undefined;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gw-workers-circuit-'));
    upstream = await new FakeUpstream().on('POST /v1/chat/completions', { status: 503, json: { error: { message: 'overloaded', type: 'server_error' } } }).start();
  });
  afterAll(async () => {
    proc?.kill();
    await upstream?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers 503 from every worker without calling the target once one worker opened its circuit', async () => {
    const config = join(dir, 'gateway.yaml');
    writeFileSync(
      config,
      `server:\n  host: 127.0.0.1\n  workers: 2\nproviders:\n  openai:\n    baseUrl: ${upstream.url}/v1\nrouting:\n  circuitBreaker:\n    failureThreshold: 2\n    cooldown: 60s\n`,
    );
    const port = await freePort();
    proc = spawnGateway(['--config', config], { env: { GATEWAY_PORT: String(port), GATEWAY_DATA_DIR: join(dir, 'data') } });
    const url = `http://127.0.0.1:${port}`;
    await waitForHealth(url, proc, 60_000);
    const by = Date.now() + 60_000;
    while (!logRecords(proc).some((r) => r.msg === 'gateway listening') && Date.now() < by) await new Promise((r) => setTimeout(r, 25));

    // Two failures on one connection: one worker sees them and opens the circuit.
    const one = new Client(url);
    const statuses: number[] = [];
    for (let i = 0; i < 2; i++) {
      const res = await one.request({ method: 'POST', path: '/v1/chat/completions', headers: HEADERS, body: JSON.stringify(CHAT) });
      statuses.push(res.statusCode);
      await res.body.dump();
    }
    await one.close();
    expect(statuses.every((s) => s >= 500)).toBe(true);
    const calls = upstream.requests.length;
    // Give the news a moment to reach the other worker (a second: CI machines run other suites beside this one), then ask on fresh
    // connections, eight at a time, until both workers have answered: each worker accepts on the shared socket (SCHED_NONE), so the
    // kernel, not a round robin, decides which one takes a connection.
    await new Promise((r) => setTimeout(r, 1000));
    const answeredBy = () =>
      new Set(
        logRecords(proc!)
          .filter((r) => r.msg === 'request' && r.status === 503)
          .map((r) => r.pid),
      );
    const answers: { status: number; body: { error?: { code?: string } }; retryAfter: string | null }[] = [];
    for (let round = 0; round < 12 && answeredBy().size < 2; round++) {
      const batch = await Promise.all(
        Array.from({ length: 8 }, async () => {
          const res = await fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: { ...HEADERS, connection: 'close' }, body: JSON.stringify(CHAT) });
          return { status: res.status, body: (await res.json()) as { error?: { code?: string } }, retryAfter: res.headers.get('retry-after') };
        }),
      );
      answers.push(...batch);
      // Log lines reach stdout within 250 ms.
      const by2 = Date.now() + 500;
      while (answeredBy().size < 2 && Date.now() < by2) await new Promise((r) => setTimeout(r, 50));
    }
    expect(answers.map((a) => a.status)).toEqual(Array(answers.length).fill(503));
    for (const a of answers) {
      expect(a.body.error?.code).toBe('service_unavailable');
      expect(Number(a.retryAfter)).toBeGreaterThan(0);
    }
    expect(upstream.requests.length).toBe(calls);
    const pids = answeredBy();
    expect(pids.size).toBe(2);
  });
});
