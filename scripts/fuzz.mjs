#!/usr/bin/env node
// `npm run fuzz`: the fuzz suite (test/fuzz) with many more cases than `npm test` runs.
// FUZZ_SCALE multiplies every property's case count (default 20: tens of thousands of cases),
// FUZZ_RUNS fixes the count of every property instead, FUZZ_SEED picks the seed (default: a new
// one each run, printed so that a failure can be replayed with FUZZ_SEED=<seed>).
// Extra arguments go to vitest (e.g. a file: npm run fuzz -- test/fuzz/mcp.test.ts).
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const env = { ...process.env };
env.FUZZ_SEED ??= String(Math.floor(Math.random() * 2 ** 31));
if (!env.FUZZ_RUNS) env.FUZZ_SCALE ??= '20';
process.stdout.write(`fuzz: seed ${env.FUZZ_SEED}, ${env.FUZZ_RUNS ? `${env.FUZZ_RUNS} cases per property` : `scale ${env.FUZZ_SCALE}`}\n`);
const args = process.argv.slice(2);
const result = spawnSync(
  process.execPath,
  [join(root, 'node_modules', 'vitest', 'vitest.mjs'), 'run', ...(args.length ? args : ['test/fuzz']), '--testTimeout=0', '--hookTimeout=120000'],
  {
    cwd: root,
    env,
    stdio: 'inherit',
  },
);
if (result.status !== 0) process.stdout.write(`fuzz: failed; replay with FUZZ_SEED=${env.FUZZ_SEED}\n`);
process.exit(result.status ?? 1);
