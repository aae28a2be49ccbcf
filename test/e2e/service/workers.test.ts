import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeUpstream } from '../../helpers/fake-upstream.js';
import { freePort, spawnGateway, waitForHealth, type GatewayProcess } from '../../helpers/built-gateway.js';
import { logRecords } from '../../helpers/npm-start.js';

const answer = (content: string) => ({
  json: { id: 'c', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }] },
});

/** `server.workers: 2`: a node:cluster of two gateways on one port, with limits shared and signals handled once for all. */
describe('server.workers (a cluster of 2)', { timeout: 180_000 }, () => {
  let dir: string;
  let first: FakeUpstream;
  let second: FakeUpstream;
  let proc: GatewayProcess | undefined;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gw-workers-'));
    first = await new FakeUpstream().on('POST /v1/chat/completions', answer('first')).start();
    second = await new FakeUpstream().on('POST /v1/chat/completions', answer('second')).start();
  });
  afterAll(async () => {
    proc?.kill();
    await first?.stop();
    await second?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  function writeConfig(upstream: FakeUpstream): string {
    const path = join(dir, 'gateway.yaml');
    writeFileSync(
      path,
      `server:\n  host: 127.0.0.1\n  workers: 2\nproviders:\n  openai:\n    baseUrl: ${upstream.url}/v1\nrateLimits:\n  - per: ip\n    limit: 6\n    window: 3600s\n    routes: ["/v1/chat/completions"]\n`,
    );
    return path;
  }

  /** One chat request on a connection of its own (so the cluster spreads them over the workers). */
  async function chat(url: string) {
    const res = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { connection: 'close', 'content-type': 'application/json', 'x-gateway-provider': 'openai', authorization: 'Bearer sk-workers-test-0001' },
      body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
    });
    const body = (await res.json()) as any;
    return { status: res.status, content: body.choices?.[0]?.message?.content as string | undefined, remaining: res.headers.get('x-ratelimit-remaining') };
  }

  async function until(check: () => boolean, what: string) {
    const by = Date.now() + 60_000;
    while (!check()) {
      if (Date.now() > by) throw new Error(`${what}:\n${proc!.stdout()}\n${proc!.stderr()}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  it('serves from both workers with one set of rate limits, reloads both on SIGHUP and drains both on SIGTERM', async () => {
    const port = await freePort();
    proc = spawnGateway(['--config', writeConfig(first)], { env: { GATEWAY_PORT: String(port), GATEWAY_DATA_DIR: join(dir, 'data') } });
    const url = `http://127.0.0.1:${port}`;
    await waitForHealth(url, proc, 60_000);
    await until(() => logRecords(proc!).some((r) => r.msg === 'gateway listening'), 'no start-up line');
    const starts = logRecords(proc).filter((r) => r.msg === 'gateway listening');
    expect(starts).toHaveLength(1); // one line for the whole cluster
    const workers = starts[0]!.workers as number[];
    expect(workers).toHaveLength(2);
    expect(starts[0]).toMatchObject({ listen: `127.0.0.1:${port}`, pid: proc.child.pid });
    for (const pid of workers) expect(() => process.kill(pid, 0)).not.toThrow();

    // 10 requests on 10 connections, spread over both workers: the limit of 6 holds for the cluster.
    const results = [];
    for (let i = 0; i < 10; i++) results.push(await chat(url));
    expect(
      results.map((r) => r.status),
      JSON.stringify(logRecords(proc).filter((r) => r.level >= 40)),
    ).toEqual([200, 200, 200, 200, 200, 200, 429, 429, 429, 429]);
    expect(results.map((r) => r.remaining)).toEqual(['5', '4', '3', '2', '1', '0', '0', '0', '0', '0']);
    expect(first.requests).toHaveLength(6);
    // Both workers answer (each request line names its worker). Each worker accepts on the shared socket, so the kernel picks
    // the worker: ask on more fresh connections, a few at once, until both have answered; the limit still holds for all of them.
    await until(() => logRecords(proc!).filter((r) => r.msg === 'request').length >= 10, 'request lines missing');
    const servedBy = () =>
      new Set(
        logRecords(proc!)
          .filter((r) => r.msg === 'request')
          .map((r) => r.pid),
      );
    for (let round = 0; round < 12 && servedBy().size < 2; round++) {
      const more = await Promise.all(Array.from({ length: 4 }, () => chat(url)));
      expect(more.map((r) => r.status)).toEqual([429, 429, 429, 429]);
      const lines = logRecords(proc).filter((r) => r.msg === 'request').length;
      await until(() => logRecords(proc!).filter((r) => r.msg === 'request').length >= lines, 'request lines missing');
      const by = Date.now() + 500;
      while (servedBy().size < 2 && Date.now() < by) await new Promise((r) => setTimeout(r, 50));
    }
    expect([...servedBy()].sort()).toEqual([...workers].sort());

    // SIGHUP to the primary: every worker reloads (the limits are kept, the provider address changes).
    writeConfig(second);
    proc.child.kill('SIGHUP');
    await until(() => logRecords(proc!).filter((r) => r.msg === 'config reloaded').length === 2, 'both workers did not reload');
    const after = await chat(url);
    expect(after.status).toBe(429); // counters survive the reload
    expect(second.requests).toHaveLength(0);

    // A worker killed outright is replaced; the port keeps answering, and the counters (held by the primary) too.
    process.kill(workers[0]!, 'SIGKILL');
    await until(() => logRecords(proc!).some((r) => r.msg === 'worker exited; starting another' && r.worker === workers[0]), 'the dead worker was not replaced');
    const linesBefore = logRecords(proc).filter((r) => r.msg === 'request').length;
    for (let i = 0; i < 4; i++) expect((await chat(url)).status).toBe(429);
    await until(() => logRecords(proc!).filter((r) => r.msg === 'request').length >= linesBefore + 4, 'request lines missing');
    const servedAfter = new Set(
      logRecords(proc)
        .filter((r) => r.msg === 'request')
        .slice(linesBefore)
        .map((r) => r.pid as number),
    );
    expect(servedAfter.has(workers[0]!)).toBe(false);
    const everyWorker = [...new Set([...workers, ...servedAfter])];

    // SIGTERM to the primary: both workers drain and exit, then the primary, with one stopped line.
    proc.child.kill('SIGTERM');
    const exit = await Promise.race([proc.exited, new Promise((r) => setTimeout(r, 60_000, 'still running'))]);
    if (exit === 'still running')
      throw new Error(
        `the primary did not exit:\n${proc
          .stdout()
          .split('\n')
          .filter((l) => !l.includes('"request"'))
          .join('\n')}\n${proc.stderr()}`,
      );
    expect(exit).toEqual({ code: 0, signal: null });
    for (const pid of everyWorker) expect(() => process.kill(pid, 0)).toThrow();
    expect(logRecords(proc).at(-1)).toMatchObject({ msg: 'gateway stopped', signal: 'SIGTERM', exitCode: 0 });
  });
});
