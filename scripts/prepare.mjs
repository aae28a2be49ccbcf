// `npm ci` / `npm install` build step (the package's `prepare` script): compiles src/ to dist/
// (and the console's ui/ to dist/ui)
// and schema/ to dist/schema-validators.cjs, so that `npm start` serves at once. A build newer than every source is kept as it is (npx
// runs this script too when it installs the package from a folder); where TypeScript is not
// installed (an install with --omit=dev of a built tree), an existing build is kept.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const BUILT = join('dist', 'main.js');

/** The newest modification time among the build's inputs (0 when there are none: a built package). */
function newestSource() {
  let newest = 0;
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else newest = Math.max(newest, statSync(path).mtimeMs);
    }
  };
  if (existsSync('src')) walk('src');
  if (existsSync('schema')) walk('schema');
  if (existsSync('ui')) walk('ui');
  for (const file of ['tsconfig.json', 'tsconfig.build.json']) if (existsSync(file)) newest = Math.max(newest, statSync(file).mtimeMs);
  return newest;
}

if (existsSync(BUILT) && statSync(BUILT).mtimeMs > newestSource()) {
  console.log('prepare: dist/ is up to date');
  process.exit(0);
}
const require = createRequire(import.meta.url);
let tsc;
try {
  tsc = require.resolve('typescript/bin/tsc');
} catch {
  if (existsSync(BUILT)) {
    console.log('prepare: TypeScript is not installed; keeping the existing build in dist/');
    process.exit(0);
  }
  console.error('prepare: TypeScript is not installed and dist/ holds no build; run `npm ci` with dev dependencies');
  process.exit(1);
}
const built = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
if (built.status !== 0) process.exit(built.status ?? 1);
// The admin console's browser app (ui/ to dist/ui).
const ui = spawnSync(process.execPath, [join('scripts', 'build-ui.mjs')], { stdio: 'inherit' });
if (ui.status !== 0) process.exit(ui.status ?? 1);
const compiled = spawnSync(process.execPath, [join('scripts', 'compile-schemas.mjs'), 'dist'], { stdio: 'inherit' });
if (compiled.status !== 0) process.exit(compiled.status ?? 1);
// The provider data files parsed once (start-up then parses no YAML; without it the gateway parses them).
const providers = spawnSync(process.execPath, [join('scripts', 'compile-provider-data.mjs'), 'dist'], { stdio: 'inherit' });
process.exit(providers.status ?? 1);
