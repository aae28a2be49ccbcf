import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ROOT, buildGateway, type GatewayProcess } from './built-gateway.js';

/**
 * A folder laid out like a clone after `npm ci`: the repository's package.json (its `start`
 * script as shipped), its prepare script and dist/ (the test build). `npm start` run there serves the current sources.
 */
export function packageFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'gw-npm-'));
  copyFileSync(join(ROOT, 'package.json'), join(dir, 'package.json'));
  mkdirSync(join(dir, 'scripts'));
  copyFileSync(join(ROOT, 'scripts', 'prepare.mjs'), join(dir, 'scripts', 'prepare.mjs'));
  symlinkSync(dirname(buildGateway()), join(dir, 'dist'), 'dir');
  return dir;
}

/** Runs `npm start -- ...args` in `cwd` as the leader of its own process group (as a supervisor would). */
export function npmStart(cwd: string, args: string[], env: Record<string, string>): GatewayProcess {
  const child = spawn('npm', ['start', '--silent', '--', ...args], {
    cwd,
    detached: true,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', npm_config_update_notifier: 'false', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString('utf8')));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString('utf8')));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    kill: () => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // Already gone.
      }
    },
  };
}

/** The JSON log records a process wrote to stdout so far. */
export function logRecords(proc: GatewayProcess): Array<Record<string, any>> {
  return proc
    .stdout()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, any>);
}

/** Whether something answers on the port. */
export async function answers(url: string): Promise<boolean> {
  return fetch(`${url}/health`, { signal: AbortSignal.timeout(2000) }).then(
    () => true,
    () => false,
  );
}

/** Resolves once nothing answers on the port any more (fails after `ms`). */
export async function untilRefused(url: string, ms = 20_000): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (!(await answers(url))) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${url} still answers after ${ms} ms`);
}
