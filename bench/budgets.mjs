#!/usr/bin/env node
// Reserve + settle latency of the budget ledger against local Redis, PostgreSQL and SQLite
// (`npm run bench:budgets`, which builds dist/ first). Three budgets apply to every request
// (key, team, organisation; monthly, one of them with alerts). Each backend runs a warm-up, then
// BENCH_BUDGET_N reserve → settle pairs one after the other (c=1) and at concurrency 16, and prints
// p50 / p99 in µs of reserve, settle and the pair. Keys and tables of the run are removed after it.
// Each backend runs twice: `per request` (every reserve and settle is a store call) and `leases`
// (budgets.leases, the default: requests reserve on a slice of the budget in memory). With leases
// a settle costs the request nothing: it runs after the answer, and its spend reaches the store
// within the lease interval; `settle` is then the time the settle call holds the caller, and
// `landed p99` the time until its spend is in the store.
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
import { LeasedLedger } from '../dist/features/governance/budgets/budget-leases.js';
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
async function pair(ledger, out, leased) {
  const r = { id: `bench-${run}-${++seq}`, micros: 2000, tokens: 500 };
  const t0 = process.hrtime.bigint();
  const res = await ledger.reserve(budgets, r);
  const t1 = process.hrtime.bigint();
  if (!res.ok) throw new Error(`reserve refused: ${JSON.stringify(res)}`);
  const settling = ledger.settle(budgets, r, { micros: 1000, tokens: 400 });
  // Per request the caller's settle is the store call; with leases it only holds the caller while it runs in memory.
  if (!leased) await settling;
  const t2 = process.hrtime.bigint();
  out?.reserve.push(us(t1 - t0));
  out?.settle.push(us(t2 - t1));
  out?.pair.push(us(t2 - t0));
  if (leased) {
    out?.pending.push(settling.then(() => out.landed.push(us(process.hrtime.bigint() - t1))));
    // The meter does not wait for it either; a turn is given so that the lease's timers run as in a server.
    await new Promise((r) => setImmediate(r));
  }
}

async function measure(ledger, concurrency, leased) {
  const out = { reserve: [], settle: [], pair: [], landed: [], pending: [] };
  let left = N;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (left-- > 0) await pair(ledger, out, leased);
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  await Promise.all(out.pending);
  return { out, perSecond: Math.round(N / seconds) };
}

const rows = [];
// The lease timers are unref'd (a server's sockets keep it alive): this keeps the bench alive.
const keepAlive = setInterval(() => undefined, 1000);
for (const [name, open] of Object.entries(backends)) {
  if (only.length && !only.includes(name)) continue;
  for (const leased of [false, true]) {
    const { backend, close } = await open();
    const store = new LedgerOverBackend(backend, { ttlMs: 30_000, logger, timeoutMs: 30_000 });
    // The gateway's defaults (budgets.leases).
    const ledger = leased ? new LeasedLedger(store, { requests: 64, share: 0.25, intervalMs: 500 }) : store;
    try {
      for (let i = 0; i < WARMUP; i++) await pair(ledger, undefined, leased);
      for (const c of [1, 16]) {
        const { out, perSecond } = await measure(ledger, c, leased);
        rows.push({
          backend: name,
          mode: leased ? 'leases' : 'per request',
          c,
          'pairs/s': perSecond,
          'reserve p50': pct(out.reserve, 50).toFixed(0),
          'reserve p99': pct(out.reserve, 99).toFixed(0),
          'settle p50': pct(out.settle, 50).toFixed(0),
          'settle p99': pct(out.settle, 99).toFixed(0),
          'pair p50': pct(out.pair, 50).toFixed(0),
          'pair p99': pct(out.pair, 99).toFixed(0),
          'landed p99': leased ? pct(out.landed, 99).toFixed(0) : '-',
        });
      }
    } finally {
      await ledger.close();
      await close();
    }
  }
}

clearInterval(keepAlive);
console.log(`budget ledger: reserve → settle on 3 budgets, ${N} pairs per row (µs)`);
console.table(rows);
