import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildGateway, freePort, ROOT } from '../../helpers/built-gateway.js';

/** Prints on stderr once Node runs JavaScript (before the gateway's main module loads). */
const PROBE = pathToFileURL(join(ROOT, 'test', 'helpers', 'js-start-probe.mjs')).href;

/**
 * Starts the built gateway and sends SIGTERM `afterMs` after Node began running JavaScript (a
 * signal before that, in Node's own start-up, no program can catch); resolves with how it exited.
 */
async function stopEarly(config: string, afterMs: number, env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', PROBE, buildGateway(), '--config', config], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
  child.stderr.on('data', (d: Buffer) => {
    const first = !err.includes('probe: javascript running');
    err += d.toString('utf8');
    if (first && err.includes('probe: javascript running')) setTimeout(() => child.kill('SIGTERM'), afterMs);
  });
  const killer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('close', (code, signal) => resolve({ code, signal })));
  clearTimeout(killer);
  const lines = out
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { exit, last: lines.at(-1), output: `${out}\n${err}` };
}

/** SIGTERM at any moment of start-up drains and exits 0 (never 143, death by the signal). */
describe('SIGTERM early in start-up', { timeout: 300_000 }, () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'gw-early-signal-'));
    writeFileSync(join(dir, 'one.yaml'), 'server:\n  host: 127.0.0.1\n');
    writeFileSync(join(dir, 'two.yaml'), 'server:\n  host: 127.0.0.1\n  workers: 2\n');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  for (const [name, file] of [
    ['one process', 'one.yaml'],
    ['server.workers: 2', 'two.yaml'],
  ] as const) {
    it(`${name}: 50, 200 and 400 ms after Node began running JavaScript`, async () => {
      for (const afterMs of [50, 200, 400]) {
        const env = { GATEWAY_PORT: String(await freePort()), GATEWAY_DATA_DIR: join(dir, `data-${file}-${afterMs}`) };
        const { exit, last, output } = await stopEarly(join(dir, file), afterMs, env);
        expect({ afterMs, ...exit }, output).toEqual({ afterMs, code: 0, signal: null });
        expect(last, output).toMatchObject({ msg: 'gateway stopped', signal: 'SIGTERM', exitCode: 0 });
      }
    });
  }
});
