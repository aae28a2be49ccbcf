#!/usr/bin/env node
// The usage report on PostgreSQL at scale: loads a month of usage ledger rows for 10,000 keys
// (in 200 teams, 20 models) into a schema of its own, then times GET /v1/admin/usage's query
// grouped by team over that month (and by key, and by team per day). Run after `npm run build`;
// PostgreSQL from GATEWAY_BENCH_PG_URL (default postgres://postgres@127.0.0.1:5432/test).
//
//   node bench/usage-report.mjs [--rows 1000000] [--runs 5] [--keep]
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from './lib/children.mjs';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const rows = arg('--rows', 1_000_000);
const runs = arg('--runs', 5);
const keep = process.argv.includes('--keep');
const build = process.env.GATEWAY_BUILD ?? join(ROOT, 'dist');
const url = process.env.GATEWAY_BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = 'bench_usage';

const load = (path) => import(pathToFileURL(join(build, path)).href);
const { PostgresStore } = await load('kernel/store/postgres/postgres-store.js');
const { USAGE_MIGRATIONS } = await load('features/governance/metering/usage-store.js');
const { usageReport } = await load('features/governance/metering/usage-report.js');
const { usdFromMicros } = await load('features/governance/prices/money.js');

const admin = new PostgresStore(url);
await admin.open();
await admin.execute(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
await admin.close();

const store = new PostgresStore(url, schema);
await store.open();
await store.migrate(USAGE_MIGRATIONS);

const DAY = 86_400_000;
const from = Date.UTC(2026, 9, 1);
const to = from + 31 * DAY;
const KEYS = 10_000;
const TEAMS = 200;
const started = performance.now();
// Batched INSERT ... SELECT: each batch of 100,000 rows made by the server from generate_series.
const BATCH = 100_000;
for (let done = 0; done < rows; done += BATCH) {
  const n = Math.min(BATCH, rows - done);
  await store.execute(
    `INSERT INTO gateway_usage (id, request_id, at, key_id, user_id, team, organization, customer, route, provider, model,
       input_tokens, cache_read_tokens, cache_write_tokens, output_tokens, reasoning_tokens, input_audio_tokens, output_audio_tokens,
       images, audio_seconds, characters, cost_micros, price_source, status, latency_ms, estimated, unverified)
     SELECT 'r' || g, 'req' || g, ? + (g * 7919 % ?), 'tok_' || (g % ${KEYS}), 'user' || (g % ${KEYS}), 'team' || (g % ${KEYS} % ${TEAMS}),
       'org' || (g % 7), NULL, 'POST /v1/chat/completions', 'openai', 'model' || (g % 20),
       100 + g % 900, g % 50, 0, 20 + g % 300, 0, 0, 0, 0, 0, 0, 30 + g % 1000, 'bench', 200, 100 + g % 900, 0, 0
     FROM generate_series(?::bigint, ?::bigint) AS g`,
    [from, to - from, done + 1, done + n],
  );
}
await store.execute('ANALYZE gateway_usage');
const loadSeconds = (performance.now() - started) / 1000;

async function timed(query) {
  const times = [];
  let lines = 0;
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    lines = (await usageReport(store, query, usdFromMicros)).length;
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return { median: times[Math.floor(times.length / 2)], best: times[0], lines };
}

const results = {
  'group_by=team, one month': await timed({ groupBy: 'team', from, to }),
  'group_by=key, one month': await timed({ groupBy: 'key', from, to }),
  'group_by=team&interval=day, one month': await timed({ groupBy: 'team', interval: 'day', from, to }),
  'group_by=team, one day': await timed({ groupBy: 'team', from: from + 10 * DAY, to: from + 11 * DAY }),
};
console.log(`${rows.toLocaleString('en')} rows, ${KEYS.toLocaleString('en')} keys, ${TEAMS} teams; loaded in ${loadSeconds.toFixed(1)} s`);
console.log('query                                   median ms   best ms   lines');
for (const [name, r] of Object.entries(results)) console.log(`${name.padEnd(40)}${r.median.toFixed(0).padStart(9)}${r.best.toFixed(0).padStart(10)}${String(r.lines).padStart(8)}`);
if (!keep) await store.execute(`DROP SCHEMA ${schema} CASCADE`);
await store.close();
