import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeUpstream } from '../../helpers/fake-upstream.js';
import { freePort, spawnGateway, waitForHealth, type GatewayProcess } from '../../helpers/built-gateway.js';
import { logRecords, npmStart, packageFolder, untilRefused } from '../../helpers/npm-start.js';

/**
 * Start and stop as a supervisor sees them: `npm start` (the shipped script, against the build
 * `npm ci` makes) and `node dist/main.js`, stopped by SIGTERM to npm, to its process group, to the
 * gateway, or by npm dying. Each drains and exits 0 with a last "gateway stopped" line.
 */
describe('start and stop (real processes)', { timeout: 120_000 }, () => {
  let dir: string;
  let pkg: string;
  let upstream: FakeUpstream;
  let release!: () => void;
  const running: GatewayProcess[] = [];

  beforeAll(async () => {
    pkg = packageFolder();
    dir = mkdtempSync(join(tmpdir(), 'gw-start-stop-'));
    const released = new Promise<void>((resolve) => (release = resolve));
    upstream = await new FakeUpstream()
      .on('POST /v1/chat/completions', async (_req, res) => {
        await released;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            id: 'c1',
            object: 'chat.completion',
            created: 1,
            model: 'm',
            choices: [{ index: 0, message: { role: 'assistant', content: 'late' }, finish_reason: 'stop' }],
          }),
        );
      })
      .start();
  }, 240_000);
  afterAll(async () => {
    for (const p of running) p.kill();
    await upstream?.stop();
    rmSync(dir, { recursive: true, force: true });
    rmSync(pkg, { recursive: true, force: true });
  });

  function config(name: string, extra = ''): string {
    const path = join(dir, name);
    writeFileSync(path, `server:\n  host: 127.0.0.1\nproviders:\n  openai:\n    baseUrl: ${upstream.url}/v1\n${extra}`);
    return path;
  }

  async function startNpm(extra = '') {
    const port = await freePort();
    const proc = npmStart(pkg, ['--config', config(`npm-${port}.yaml`, extra)], { GATEWAY_PORT: String(port), GATEWAY_DATA_DIR: join(dir, `data-${port}`) });
    running.push(proc);
    const url = `http://127.0.0.1:${port}`;
    await waitForHealth(url, proc, 60_000);
    return { proc, url, port };
  }

  function expectStoppedCleanly(proc: GatewayProcess, signal: string) {
    const records = logRecords(proc);
    expect(records.at(-1)).toMatchObject({ msg: 'gateway stopped', signal, exitCode: 0 });
  }

  it('npm start: the start-up line names the real listen address, config, providers, pipelines, auth, tool servers and store', async () => {
    const { proc, url, port } = await startNpm();
    // /health may answer a moment before the line is flushed; logs reach stdout within 250 ms.
    const by = Date.now() + 2000;
    while (!logRecords(proc).some((r) => r.msg === 'gateway listening') && Date.now() < by) await new Promise((r) => setTimeout(r, 20));
    const start = logRecords(proc).find((r) => r.msg === 'gateway listening');
    expect(start).toMatchObject({
      listen: `127.0.0.1:${port}`,
      url,
      config: expect.stringMatching(/npm-\d+\.yaml$/),
      providers: { openai: `${upstream.url}/v1` },
      auth: 'off',
      mcpServers: [],
      store: expect.stringMatching(/^sqlite .*gateway\.db$/),
    });
    expect(start!.pipelines.chat).toEqual(expect.arrayContaining(['POST /v1/chat/completions']));
    expect(start!.pipelines.mcp).toEqual(expect.arrayContaining(['POST /mcp']));
    process.kill(proc.child.pid!, 'SIGTERM');
    expect(await proc.exited).toEqual({ code: 0, signal: null });
    await untilRefused(url);
    expectStoppedCleanly(proc, 'SIGTERM');
  });

  it('SIGTERM to the process group of npm start: an in-flight request finishes, then everything exits', async () => {
    const { proc, url } = await startNpm();
    const inFlight = fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-gateway-provider': 'openai', authorization: 'Bearer sk-group-test-0001' },
      body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
    });
    while (upstream.requests.length === 0) await new Promise((r) => setTimeout(r, 20));
    process.kill(-proc.child.pid!, 'SIGTERM');
    await untilRefused(url); // stops accepting while the request is still in flight
    release();
    const res = await inFlight;
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).choices[0].message.content).toBe('late');
    expect((await proc.exited).code).toBe(0);
    // The gateway itself is gone too (nothing left in the group).
    await new Promise((r) => setTimeout(r, 200));
    expect(() => process.kill(-proc.child.pid!, 0)).toThrow();
    expectStoppedCleanly(proc, 'SIGTERM');
  });

  it('npm killed outright: the gateway notices its parent is gone, drains and exits', async () => {
    const { proc, url } = await startNpm();
    process.kill(proc.child.pid!, 'SIGKILL');
    await untilRefused(url);
    const until = Date.now() + 20_000;
    while (!proc.stdout().includes('"gateway stopped"') && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    expectStoppedCleanly(proc, 'parent process gone');
  });

  it('SIGTERM while a tool server is still starting: the port closes and the gateway exits 0 at once', async () => {
    const port = await freePort();
    // A tool server that never answers the MCP handshake stays "starting" for 30 s.
    const path = config('slow-tools.yaml', `mcpServers:\n  sleepy:\n    command: ${process.execPath}\n    args: ["-e", "setInterval(() => {}, 1000)"]\n`);
    const proc = spawnGateway(['--config', path], { env: { GATEWAY_PORT: String(port), GATEWAY_DATA_DIR: join(dir, 'data-slow') } });
    running.push(proc);
    const url = `http://127.0.0.1:${port}`;
    await waitForHealth(url, proc, 60_000);
    expect((await fetch(`${url}/ready`)).status).toBe(503); // the tool server is not up
    proc.child.kill('SIGTERM');
    expect(await proc.exited).toEqual({ code: 0, signal: null });
    expectStoppedCleanly(proc, 'SIGTERM');
    expect(logRecords(proc).find((r) => r.msg === 'tool server connected')).toBeUndefined();
  });

  it('a request log line reaches stdout while the gateway is otherwise idle', async () => {
    const port = await freePort();
    const proc = spawnGateway(['--config', config('idle.yaml')], { env: { GATEWAY_PORT: String(port), GATEWAY_DATA_DIR: join(dir, 'data-idle') } });
    running.push(proc);
    const url = `http://127.0.0.1:${port}`;
    await waitForHealth(url, proc, 60_000);
    const res = await fetch(`${url}/v1/models/unknown-route-for-log`, { headers: { 'x-gateway-provider': 'openai' } });
    const id = res.headers.get('x-gateway-request-id');
    // Nothing else happens: the periodic flush alone must bring the line out.
    const until = Date.now() + 10_000;
    while (!logRecords(proc).some((r) => r.requestId === id) && Date.now() < until) await new Promise((r) => setTimeout(r, 25));
    expect(logRecords(proc).find((r) => r.requestId === id)).toMatchObject({ msg: 'request' });
    proc.child.kill('SIGTERM');
    expect((await proc.exited).code).toBe(0);
  });
});
