import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT, freePort, waitForHealth, type GatewayProcess } from '../../helpers/built-gateway.js';
import { logRecords, packageFolder } from '../../helpers/npm-start.js';

const run = promisify(execFile);
const pkgJson = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));

/** The package as npm sees it: a name and a bin no other npm package holds, and a bin npx runs. */
describe('the package and its bin (npx)', { timeout: 120_000 }, () => {
  let pkg: string;
  let elsewhere: string;
  const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', npm_config_update_notifier: 'false', npm_config_yes: 'true' };

  beforeAll(() => {
    pkg = packageFolder();
    elsewhere = mkdtempSync(join(tmpdir(), 'gw-npx-cwd-'));
  }, 240_000);
  afterAll(() => {
    rmSync(pkg, { recursive: true, force: true });
    rmSync(elsewhere, { recursive: true, force: true });
  });

  it('is publishable (not private) as `pipeline-gateway`, with a bin of the same name (`ai-gateway` belongs to another npm package)', () => {
    // `npm view pipeline-gateway` answered 404 on 2026-11-26: no package holds the name (nor so the bin npx resolves by it).
    expect(pkgJson.name).toBe('pipeline-gateway');
    expect(pkgJson.private).toBeUndefined();
    expect(pkgJson.bin).toEqual({ 'pipeline-gateway': 'dist/main.js' });
    expect(pkgJson.files).toEqual(expect.arrayContaining(['dist/', 'schema/', 'pipelines/', 'gateway.yaml']));
    expect(readFileSync(join(ROOT, 'src', 'main.ts'), 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
  });

  it('`npx pipeline-gateway` in a clone runs its own bin, not a package from the registry', async () => {
    const { stdout } = await run('npx', ['pipeline-gateway', '--version'], { cwd: pkg, env });
    expect(stdout).toBe(`${pkgJson.version}\n`);
  });

  it('`npx <folder>` from anywhere runs the gateway of that folder', async () => {
    const { stdout } = await run('npx', [pkg, '--help'], { cwd: elsewhere, env });
    expect(stdout).toContain('Usage: pipeline-gateway [--config <path>]');
  });

  it('`npx <package>` in a folder with no config file starts on the shipped gateway.yaml, state under ./data, and stops on SIGTERM', async () => {
    const port = await freePort();
    const child = spawn('npx', [pkg], {
      cwd: elsewhere,
      env: { ...env, GATEWAY_PORT: String(port), GATEWAY_HOST: '127.0.0.1' },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d));
    child.stderr.on('data', (d: Buffer) => (err += d));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('close', (code, signal) => resolve({ code, signal })));
    const proc: GatewayProcess = { child, stdout: () => out, stderr: () => err, exited, kill: () => child.exitCode === null && process.kill(-child.pid!, 'SIGKILL') };
    try {
      await waitForHealth(`http://127.0.0.1:${port}`, proc, 60_000);
      const by = Date.now() + 2000;
      while (!logRecords(proc).some((r) => r.msg === 'gateway listening') && Date.now() < by) await new Promise((r) => setTimeout(r, 20));
      const start = logRecords(proc).find((r) => r.msg === 'gateway listening');
      // The shipped defaults: the package's own gateway.yaml (GATEWAY_HOST is read there; the folder's
      // dist/ is this checkout's test build, so its package root is the checkout), no auth, SQLite under ./data.
      expect(start).toMatchObject({ listen: `127.0.0.1:${port}`, config: join(ROOT, 'gateway.yaml'), auth: 'off' });
      expect(existsSync(join(elsewhere, 'data', 'gateway.db'))).toBe(true);
      // SIGTERM to the process group (as Ctrl-C or a supervisor): the gateway drains and exits 0 (npx itself ends by the signal).
      process.kill(-child.pid!, 'SIGTERM');
      await exited;
      expect(logRecords(proc).at(-1)).toMatchObject({ msg: 'gateway stopped', signal: 'SIGTERM', exitCode: 0 });
    } finally {
      proc.kill();
    }
  });
});
