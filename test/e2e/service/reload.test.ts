import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { FakeUpstream } from '../../helpers/fake-upstream.js';
import { ROOT, freePort, spawnGateway, waitForHealth, type GatewayProcess } from '../../helpers/built-gateway.js';
import { logRecords } from '../../helpers/npm-start.js';

/** Held in flight across the reload (the gateway opens up to 256 connections to one upstream). */
const HELD = 200;
const AFTER = 100;

/**
 * SIGHUP reload of the built gateway under load: a few hundred requests in flight against a fake
 * upstream that holds its answers; the config and pipelines swap for new requests while the held
 * ones finish on theirs, and none is lost. A config with problems keeps the running one.
 */
describe('SIGHUP reload (the built process)', { timeout: 180_000 }, () => {
  let dir: string;
  let upstream: FakeUpstream;
  let proc: GatewayProcess | undefined;
  let release!: () => void;
  let released: Promise<void>;
  const agent = new Agent({ connections: 512, pipelining: 0 });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gw-reload-'));
    released = new Promise<void>((resolve) => (release = resolve));
    upstream = await new FakeUpstream()
      .on('POST /v1/chat/completions', async (req, res) => {
        if (req.json().messages[0].content === 'hold') await released;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            id: 'c',
            object: 'chat.completion',
            created: 1,
            model: 'm',
            choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
          }),
        );
      })
      .start();
  }, 240_000);
  afterAll(async () => {
    proc?.kill();
    await agent.close();
    await upstream?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A config whose chat pipeline stamps `x-config: <stamp>` on every answer. */
  function writeConfig(stamp: string, extra = ''): string {
    const pipes = join(dir, `pipes-${stamp}`);
    mkdirSync(pipes, { recursive: true });
    writeFileSync(
      join(pipes, 'chat.yaml'),
      `name: chat\nextends: provider\nroutes: ["POST /v1/chat/completions"]\nremove: [resource-shapes, gateway-batches]\ninsert:\n  - after: normalize-error\n    stages:\n      - header-stamp: { header: x-config, value: ${stamp} }\n`,
    );
    const config = join(dir, 'gateway.yaml');
    writeFileSync(
      config,
      [
        'server:',
        '  host: 127.0.0.1',
        'plugins:',
        `  - ${join(ROOT, 'examples/plugins/header-stamp.mjs')}`,
        'pipelines:',
        `  dir: ${pipes}`,
        'providers:',
        '  openai:',
        `    baseUrl: ${upstream.url}/v1`,
        'mcpServers:',
        '  tools:',
        `    command: ${process.execPath}`,
        `    args: [${join(ROOT, 'test/helpers/stdio-tool-server.mjs')}]`,
        extra,
      ].join('\n'),
    );
    return config;
  }

  function chat(url: string, hold: boolean) {
    return request(`${url}/v1/chat/completions`, {
      method: 'POST',
      dispatcher: agent,
      headers: { 'content-type': 'application/json', 'x-gateway-provider': 'openai', authorization: 'Bearer sk-reload-test-0001' },
      body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: hold ? 'hold' : 'hi' }] }),
    }).then(async (res) => {
      const body = (await res.body.json()) as any;
      return { status: res.statusCode, stamp: res.headers['x-config'], content: body.choices?.[0]?.message?.content };
    });
  }

  async function logLine(msg: string, after: number): Promise<Record<string, any>> {
    const until = Date.now() + 60_000;
    for (;;) {
      const found = logRecords(proc!)
        .slice(after)
        .find((r) => r.msg === msg);
      if (found) return found;
      if (Date.now() > until) throw new Error(`no "${msg}" log line:\n${proc!.stdout()}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  it(`swaps config and pipelines under load (${HELD} requests in flight) and loses none; a bad config keeps the running one`, async () => {
    const port = await freePort();
    const config = writeConfig('A');
    proc = spawnGateway(['--config', config], { env: { GATEWAY_PORT: String(port), GATEWAY_DATA_DIR: join(dir, 'data') } });
    const url = `http://127.0.0.1:${port}`;
    await waitForHealth(url, proc, 60_000);
    await logLine('tool server connected', 0);

    // HELD requests in flight on config A, held by the upstream.
    const held = Array.from({ length: HELD }, () => chat(url, true));
    const heldBy = Date.now() + 60_000;
    while (upstream.requests.length < HELD) {
      if (Date.now() > heldBy) throw new Error(`only ${upstream.requests.length} requests reached the upstream`);
      await new Promise((r) => setTimeout(r, 20));
    }

    // Reload to B; meanwhile a trickle of requests keeps arriving (they land on A or B).
    writeConfig('B');
    const mark = logRecords(proc).length;
    proc.child.kill('SIGHUP');
    const during: Array<ReturnType<typeof chat>> = [];
    let reloaded = false;
    const reloadedLine = logLine('config reloaded', mark).then((r) => ((reloaded = true), r));
    while (!reloaded) {
      during.push(chat(url, false));
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(await reloadedLine).toMatchObject({ listen: `127.0.0.1:${port}`, pipelines: expect.objectContaining({ chat: ['POST /v1/chat/completions'] }) });

    // New requests use B at once, while the held ones are still in flight.
    const after = await Promise.all(Array.from({ length: AFTER }, () => chat(url, false)));
    expect(after.every((r) => r.status === 200 && r.stamp === 'B')).toBe(true);

    release();
    const heldResults = await Promise.all(held);
    const duringResults = await Promise.all(during);
    const lost = [...heldResults, ...duringResults].filter((r) => r.status !== 200 || r.content !== 'ok');
    expect(lost).toEqual([]);
    // The ones in flight finished on the config they started with.
    expect(heldResults.every((r) => r.stamp === 'A')).toBe(true);
    expect(duringResults.every((r) => r.stamp === 'A' || r.stamp === 'B')).toBe(true);
    // The tool server (settings unchanged) was kept: connected once, never restarted.
    expect(logRecords(proc).filter((r) => r.msg === 'tool server connected')).toHaveLength(1);
    console.log(
      `reload under load: ${heldResults.length} held + ${duringResults.length} during + ${after.length} after = ${heldResults.length + duringResults.length + after.length} requests, ${lost.length} lost`,
    );

    // A config with problems: one line per problem, the running config (B) stays.
    writeConfig('C', 'logging:\n  level: loud\ncolour: blue\n');
    const mark2 = logRecords(proc).length;
    proc.child.kill('SIGHUP');
    const problems = async () => {
      const until = Date.now() + 30_000;
      while (Date.now() < until) {
        const lines = logRecords(proc!)
          .slice(mark2)
          .filter((r) => r.level === 50);
        if (lines.length >= 2) return lines;
        await new Promise((r) => setTimeout(r, 20));
      }
      throw new Error(proc!.stdout());
    };
    expect((await problems()).map((r) => r.msg).sort()).toEqual(['colour: is not a known key', 'logging.level: must be one of fatal, error, warn, info, debug, trace, silent']);
    expect((await chat(url, false)).stamp).toBe('B');

    // A pipeline that does not compile: its problem is logged and B still serves.
    writeConfig('D');
    writeFileSync(join(dir, 'pipes-D', 'chat.yaml'), 'name: chat\nroutes: ["POST /v1/chat/completions"]\nstages:\n  - normalize-error\n  - teleport\n');
    const mark3 = logRecords(proc).length;
    proc.child.kill('SIGHUP');
    const pipelineProblem = await (async () => {
      const until = Date.now() + 30_000;
      while (Date.now() < until) {
        const line = logRecords(proc!)
          .slice(mark3)
          .find((r) => r.level === 50);
        if (line) return line;
        await new Promise((r) => setTimeout(r, 20));
      }
      throw new Error(proc!.stdout());
    })();
    expect(pipelineProblem.msg).toMatch(/pipes-D\/chat\.yaml: stages\[1\]: unknown stage "teleport"/);
    expect((await chat(url, false)).stamp).toBe('B');

    proc.child.kill('SIGTERM');
    expect(await proc.exited).toEqual({ code: 0, signal: null });
  });
});
