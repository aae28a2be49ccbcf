import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request, Agent } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeUpstream } from '../../helpers/fake-upstream.js';
import { freePort, spawnGateway, waitForHealth, type GatewayProcess } from '../../helpers/built-gateway.js';
import { logRecords } from '../../helpers/npm-start.js';

/** How long a request may go without an answer or a closed socket (the bound issue 21 sets). */
const BOUND_MS = 5000;

type Outcome = 'answered' | 'closed' | 'hung';

/** One chat request: answered, its socket closed (or refused), or neither within BOUND_MS. */
function chat(port: number, agent: Agent | false): Promise<Outcome> {
  return new Promise((resolve) => {
    const body = JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
    let settled = false;
    const settle = (outcome: Outcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/v1/chat/completions',
        agent,
        headers: { 'content-type': 'application/json', 'x-gateway-provider': 'openai', authorization: 'Bearer sk-killed-worker-0001' },
      },
      (res) => {
        res.resume();
        res.on('end', () => settle('answered'));
        res.on('error', () => settle('closed'));
        res.on('aborted', () => settle('closed'));
      },
    );
    req.on('error', () => settle('closed'));
    req.on('close', () => setImmediate(() => settle('closed')));
    const timer = setTimeout(() => {
      settle('hung');
      req.destroy();
    }, BOUND_MS);
    req.end(body);
  });
}

/** `server.workers: 2`, a worker killed with SIGKILL while requests keep coming. */
describe('server.workers: a worker killed under load', { timeout: 180_000 }, () => {
  let dir: string;
  let upstream: FakeUpstream;
  let proc: GatewayProcess | undefined;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gw-killed-'));
    upstream = await new FakeUpstream()
      .on('POST /v1/chat/completions', {
        json: { id: 'c', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }] },
        delayMs: 5,
      })
      .start();
  });
  afterAll(async () => {
    proc?.kill();
    await upstream?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers or closes every request within 5 s, kill after kill, and replaces each dead worker', async () => {
    const port = await freePort();
    const config = join(dir, 'gateway.yaml');
    writeFileSync(config, `server:\n  host: 127.0.0.1\n  workers: 2\nproviders:\n  openai:\n    baseUrl: ${upstream.url}/v1\n`);
    proc = spawnGateway(['--config', config], { env: { GATEWAY_PORT: String(port), GATEWAY_DATA_DIR: join(dir, 'data') } });
    await waitForHealth(`http://127.0.0.1:${port}`, proc, 60_000);

    const servingPids = () => new Set(logRecords(proc!).flatMap((r) => (r.msg === 'request' ? [r.pid as number] : [])));
    const until = async (check: () => boolean, what: string) => {
      const by = Date.now() + 60_000;
      while (!check()) {
        if (Date.now() > by) throw new Error(what);
        await new Promise((r) => setTimeout(r, 200)); // (each look parses every log line so far)
      }
    };

    // Eight loops of requests: half on keep-alive connections, half on a fresh connection each.
    const outcomes: Record<Outcome, number> = { answered: 0, closed: 0, hung: 0 };
    let running = true;
    const keepAlive = new Agent({ keepAlive: true, maxSockets: 4 });
    const loops = Array.from({ length: 8 }, async (_, i) => {
      while (running) outcomes[await chat(port, i % 2 ? keepAlive : false)]++;
    });

    const killed: number[] = [];
    for (let kill = 0; kill < 3; kill++) {
      // Both workers serve (the replacement of the last one killed too), then one of them dies.
      await until(() => [...servingPids()].filter((pid) => !killed.includes(pid)).length >= 2, `two live workers did not serve:\n${proc.stderr()}`);
      const victim = [...servingPids()].find((pid) => !killed.includes(pid))!;
      await new Promise((r) => setTimeout(r, 300));
      process.kill(victim, 'SIGKILL');
      killed.push(victim);
      await until(() => logRecords(proc!).some((r) => r.msg === 'worker exited; starting another' && r.worker === victim), 'the dead worker was not replaced');
    }
    await until(() => [...servingPids()].filter((pid) => !killed.includes(pid)).length >= 2, 'the last replacement did not serve');
    running = false;
    await Promise.all(loops);
    keepAlive.destroy();

    expect(outcomes.hung).toBe(0);
    expect(outcomes.answered).toBeGreaterThan(100);
    // After the kills, the port still answers every request.
    for (let i = 0; i < 4; i++) expect(await chat(port, false)).toBe('answered');
  });
});
