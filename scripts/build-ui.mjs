// Builds the admin console's browser app (ui/) into dist/ui: its TypeScript compiled by tsc as
// native ES modules (ui/tsconfig.json, no bundler), and the static files of ui/static copied
// beside them. `npm run build` and scripts/prepare.mjs run it.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

if (!existsSync(join('ui', 'tsconfig.json'))) {
  console.log('build-ui: no ui/ sources here; keeping dist/ui as it is');
  process.exit(0);
}
const require = createRequire(import.meta.url);
const tsc = require.resolve('typescript/bin/tsc');
const built = spawnSync(process.execPath, [tsc, '-p', join('ui', 'tsconfig.json')], { stdio: 'inherit' });
if (built.status !== 0) process.exit(built.status ?? 1);
mkdirSync(join('dist', 'ui'), { recursive: true });
cpSync(join('ui', 'static'), join('dist', 'ui'), { recursive: true });
