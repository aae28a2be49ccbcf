import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './built-gateway.js';

const UI = join(ROOT, 'ui');
const OUT = join(ROOT, 'dist', 'ui');
const LOCK = join(ROOT, 'dist', '.ui-build.lock');

/** The newest modification time among ui/'s files. */
function stamp(): string {
  let newest = 0;
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else newest = Math.max(newest, statSync(p).mtimeMs);
    }
  };
  walk(UI);
  return String(newest);
}

/** Builds the console's browser app into dist/ui (as `npm run build` does) unless it is up to date; one test file at a time. */
export function buildConsole(): void {
  const stampFile = join(ROOT, 'dist', '.ui-build-stamp');
  const want = stamp();
  const upToDate = () => existsSync(join(OUT, 'index.html')) && existsSync(stampFile) && readFileSync(stampFile, 'utf8') === want;
  mkdirSync(join(ROOT, 'dist'), { recursive: true });
  for (;;) {
    if (upToDate()) return;
    try {
      mkdirSync(LOCK);
    } catch {
      if (Date.now() - statSync(LOCK, { throwIfNoEntry: false })!.mtimeMs > 120_000) rmSync(LOCK, { recursive: true, force: true });
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
      continue;
    }
    try {
      if (upToDate()) return;
      execFileSync(process.execPath, [join(ROOT, 'scripts', 'build-ui.mjs')], { cwd: ROOT, stdio: 'pipe' });
      writeFileSync(stampFile, want);
      return;
    } finally {
      rmSync(LOCK, { recursive: true, force: true });
    }
  }
}
