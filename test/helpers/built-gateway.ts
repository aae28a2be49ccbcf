import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root. */
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
/**
 * Where the test build goes: inside the repo (so the built code finds this checkout's schema/ and
 * pipelines/), out of git's way, and never behind a symlinked node_modules shared by checkouts.
 */
const OUT = join(ROOT, '.test-build');
const LOCK = `${OUT}.lock`;

function sourceStamp(): string {
  const hash = createHash('sha256');
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const full = join(dir, name);
      const st = statSync(full);
      if (st.isDirectory()) walk(full);
      else hash.update(`${full}:${st.size}:${st.mtimeMs}\n`);
    }
  };
  walk(join(ROOT, 'src'));
  walk(join(ROOT, 'schema'));
  hash.update(readFileSync(join(ROOT, 'scripts', 'compile-schemas.mjs')));
  for (const file of ['tsconfig.json', 'tsconfig.build.json']) hash.update(readFileSync(join(ROOT, file)));
  return hash.digest('hex');
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Compiles src/ with the project's build config (`tsc -p tsconfig.build.json`, types are checked
 * by `npm test`'s pretest) and schema/ into precompiled validators (scripts/compile-schemas.mjs),
 * once per source change, and returns the path of the built main.js.
 * Test files running in parallel share one build through a lock folder.
 */
export function buildGateway(): string {
  const main = join(OUT, 'main.js');
  const stampFile = join(OUT, '.stamp');
  const stamp = sourceStamp();
  mkdirSync(dirname(LOCK), { recursive: true });
  for (;;) {
    if (existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp) return main;
    try {
      mkdirSync(LOCK, { recursive: false });
    } catch {
      // Another test file is building; a lock older than two minutes is left over from a crash.
      try {
        if (Date.now() - statSync(LOCK).mtimeMs > 120_000) rmSync(LOCK, { recursive: true, force: true });
      } catch {
        /* gone meanwhile */
      }
      sleepSync(200);
      continue;
    }
    try {
      if (existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp) return main;
      const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
      execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--noCheck', '--outDir', OUT], { cwd: ROOT, stdio: 'pipe' });
      // As the build does: the schemas compiled ahead, beside main.js.
      execFileSync(process.execPath, [join(ROOT, 'scripts', 'compile-schemas.mjs'), OUT], { cwd: ROOT, stdio: 'pipe' });
      writeFileSync(stampFile, stamp);
      return main;
    } finally {
      rmSync(LOCK, { recursive: true, force: true });
    }
  }
}

/** A port nothing listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface GatewayProcess {
  child: ChildProcess;
  /** Everything written to stdout / stderr so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves when the process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Sends SIGKILL if it still runs. */
  kill(): void;
}

/** Runs the built gateway (`node dist/main.js ...args`, or another main.js: an installed package's) with `env` added to a clean environment. */
export function spawnGateway(args: string[], options: { env?: Record<string, string>; cwd?: string; main?: string } = {}): GatewayProcess {
  const main = options.main ?? buildGateway();
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...options.env };
  const child = spawn(process.execPath, [main, ...args], { cwd: options.cwd ?? ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString('utf8')));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString('utf8')));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('close', (code, signal) => resolve({ code, signal }));
  });
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}

/** Polls GET <url>/health until it answers 200 (or the process exits). */
export async function waitForHealth(url: string, proc: GatewayProcess, timeoutMs = 20_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  let exited = false;
  void proc.exited.then(() => (exited = true));
  while (Date.now() < until) {
    if (exited) throw new Error(`the gateway exited before it was healthy:\n${proc.stderr()}\n${proc.stdout()}`);
    try {
      const res = await fetch(`${url}/health`);
      if (res.status === 200) return;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`the gateway did not become healthy:\n${proc.stderr()}\n${proc.stdout()}`);
}
