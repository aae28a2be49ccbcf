#!/usr/bin/env node
// Reserve + settle latency of the budget ledger against local Redis, PostgreSQL and SQLite
// (`npm run bench:budgets`, which builds dist/ first). Three budgets apply to every request
// (key, team, organisation; monthly, one of them with alerts). Each backend runs a warm-up, then
// BENCH_BUDGET_N reserve → settle pairs one after the other (c=1) and at concurrency 16, and prints
// p50 / p99 in µs of reserve, settle and the pair. Keys and tables of the run are removed after it.
//   BENCH_REDIS_URL (redis://127.0.0.1:6379), BENCH_PG_URL (postgres://postgres@127.0.0.1:5432/test)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import pg from 'pg';
import { createLogger } from '../dist/kernel/observability/logger.js';
import { SqliteStore } from '../dist/kernel/store/sqlite/sqlite-store.js';
import { PostgresStore } from '../dist/kernel/store/postgres/postgres-store.js';
import { REDIS_CLIENT_OPTIONS } from '../dist/kernel/store/redis-client.js';
import { LedgerOverBackend } from '../dist/features/governance/budgets/budget-ledger.js';
import { BUDGET_MIGRATIONS } from '../dist/features/governance/budgets/budget-migrations.js';
import { SqlLedgerBackend } from '../dist/features/governance/budgets/sql-ledger-backend.js';
import { RedisLedgerBackend } from '../dist/features/governance/budgets/redis-ledger-backend.js';

const N = Number(process.env.BENCH_BUDGET_N ?? 5000);
const WARMUP = Math.min(1000, Math.ceil(N / 5));
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const PG_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const only = process.argv.slice(2);
const run = randomBytes(4).toString('hex');
const logger = createLogger('silent');

const budgets = [
  { id: 'key:bench-key:0', scope: 'key', subject: 'bench-key', budget: { limit_usd: 1e6 } },
  { id: 'team:bench-team:0', scope: 'team', subject: 'bench-team', budget: { limit_usd: 1e6, alerts: [50, 90] } },
  { id: 'organization:bench-org:0', scope: 'organization', subject: 'bench-org', budget: { limit_usd: 1e6, limit_tokens: 1e12 } },
];

const backends = {
  async redis() {
    const prefix = `bench-budgets-${run}:`;
    const client = new Redis(REDIS_URL, REDIS_CLIENT_OPTIONS);
    await client.connect();
    return {
      backend: new RedisLedgerBackend(client, prefix),
      async close() {
        const keys = await client.keys(`${prefix}*`);
        if (keys.length) await client.del(...keys);
        await client.quit();
      },
    };
  },
  async postgres() {
    const schema = `bench_budgets_${run}`;
    const store = new PostgresStore(PG_URL, schema);
    await store.open();
    await store.migrate(BUDGET_MIGRATIONS);
    return {
      backend: new SqlLedgerBackend(store),
      async close() {
        await store.close();
        const c = new pg.Client({ connectionString: PG_URL });
        await c.connect();
        await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await c.end();
      },
    };
  },
  async sqlite() {
    const dir = mkdtempSync(join(tmpdir(), 'bench-budgets-'));
    const store = new SqliteStore(join(dir, 'gateway.db'));
    await store.migrate(BUDGET_MIGRATIONS);
    return {
      backend: new SqlLedgerBackend(store),
      async close() {
        await store.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
};

const us = (ns) => Number(ns) / 1000;
function pct(samples, p) {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

let seq = 0;
async function pair(ledger, out) {
  const r = { id: `bench-${run}-${++seq}`, micros: 2000, tokens: 500 };
  const t0 = process.hrtime.bigint();
  const res = await ledger.reserve(budgets, r);
  const t1 = process.hrtime.bigint();
  if (!res.ok) throw new Error(`reserve refused: ${JSON.stringify(res)}`);
  await ledger.settle(budgets, r, { micros: 1000, tokens: 400 });
  const t2 = process.hrtime.bigint();
  out?.reserve.push(us(t1 - t0));
  out?.settle.push(us(t2 - t1));
  out?.pair.push(us(t2 - t0));
}

async function measure(ledger, concurrency) {
  const out = { reserve: [], settle: [], pair: [] };
  let left = N;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (left-- > 0) await pair(ledger, out);
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return { out, perSecond: Math.round(N / seconds) };
}

const rows = [];
for (const [name, open] of Object.entries(backends)) {
  if (only.length && !only.includes(name)) continue;
  const { backend, close } = await open();
  const ledger = new LedgerOverBackend(backend, { ttlMs: 30_000, logger, timeoutMs: 30_000 });
  try {
    for (let i = 0; i < WARMUP; i++) await pair(ledger);
    for (const c of [1, 16]) {
      const { out, perSecond } = await measure(ledger, c);
      rows.push({
        backend: name,
        c,
        'pairs/s': perSecond,
        'reserve p50': pct(out.reserve, 50).toFixed(0),
        'reserve p99': pct(out.reserve, 99).toFixed(0),
        'settle p50': pct(out.settle, 50).toFixed(0),
        'settle p99': pct(out.settle, 99).toFixed(0),
        'pair p50': pct(out.pair, 50).toFixed(0),
        'pair p99': pct(out.pair, 99).toFixed(0),
      });
    }
  } finally {
    await ledger.close();
    await close();
  }
}

console.log(`budget ledger: reserve → settle on 3 budgets, ${N} pairs per row (µs)`);
console.table(rows);
