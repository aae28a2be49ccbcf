// `npm ci` / `npm install` build step (the package's `prepare` script): compiles src/ to dist/
// so that `npm start` serves at once. Where TypeScript is not installed (an install with
// --omit=dev of an already built tree), an existing build is kept.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
let tsc;
try {
  tsc = require.resolve('typescript/bin/tsc');
} catch {
  if (existsSync('dist/main.js')) {
    console.log('prepare: TypeScript is not installed; keeping the existing build in dist/');
    process.exit(0);
  }
  console.error('prepare: TypeScript is not installed and dist/ holds no build; run `npm ci` with dev dependencies');
  process.exit(1);
}
const result = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
process.exit(result.status ?? 1);
