import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import type { ApplicableBudget, Reservation } from '../../../../src/features/governance/governance-types.js';
import { createLogger } from '../../../../src/kernel/observability/logger.js';
import { SqliteStore } from '../../../../src/kernel/store/sqlite/sqlite-store.js';
import { PostgresStore } from '../../../../src/kernel/store/postgres/postgres-store.js';
import { REDIS_CLIENT_OPTIONS } from '../../../../src/kernel/store/redis-client.js';
import type { SqlStore } from '../../../../src/kernel/store/sql-store.js';
import { LedgerOverBackend } from '../../../../src/features/governance/budgets/budget-ledger.js';
import { LeasedLedger } from '../../../../src/features/governance/budgets/budget-leases.js';
import { BUDGET_MIGRATIONS } from '../../../../src/features/governance/budgets/budget-migrations.js';
import { SqlLedgerBackend } from '../../../../src/features/governance/budgets/sql-ledger-backend.js';
import { RedisLedgerBackend } from '../../../../src/features/governance/budgets/redis-ledger-backend.js';
import type { LedgerBackend } from '../../../../src/features/governance/budgets/ledger-backend.js';
import { dropSharedState, PG_URL, REDIS_URL } from '../../../helpers/shared-stores.js';

const logger = createLogger(process.env.DBG ? 'warn' : 'silent');
const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

type Kind = 'sqlite' | 'postgres' | 'redis';

/** Two stores' backends as two instances see them (SQLite: one store). */
async function backends(kind: Kind): Promise<[LedgerBackend, LedgerBackend]> {
  const run = randomBytes(6).toString('hex');
  if (kind === 'redis') {
    const prefix = `test-leases-${run}:`;
    const clients = [new Redis(REDIS_URL, REDIS_CLIENT_OPTIONS), new Redis(REDIS_URL, REDIS_CLIENT_OPTIONS)];
    await Promise.all(clients.map((c) => c.connect()));
    cleanups.push(async () => {
      await dropSharedState('redis', prefix, '');
      for (const c of clients) await c.quit();
    });
    return [new RedisLedgerBackend(clients[0]!, prefix), new RedisLedgerBackend(clients[1]!, prefix)];
  }
  let stores: SqlStore[];
  if (kind === 'postgres') {
    const schema = `test_leases_${run}`;
    stores = [new PostgresStore(PG_URL, schema), new PostgresStore(PG_URL, schema)];
    for (const s of stores as PostgresStore[]) await s.open();
    cleanups.push(async () => {
      for (const s of stores) await s.close();
      await dropSharedState('postgres', '', schema);
    });
  } else {
    const dir = mkdtempSync(join(tmpdir(), 'leases-'));
    const sqlite = new SqliteStore(join(dir, 'gateway.db'));
    stores = [sqlite, sqlite];
    cleanups.push(async () => {
      await sqlite.close();
      rmSync(dir, { recursive: true, force: true });
    });
  }
  for (const s of stores) await s.migrate(BUDGET_MIGRATIONS);
  return [new SqlLedgerBackend(stores[0]!), new SqlLedgerBackend(stores[1]!)];
}

function leased(backend: LedgerBackend, options: { requests?: number; intervalMs?: number; ttlMs?: number } = {}): { ledger: LeasedLedger; store: LedgerOverBackend } {
  const store = new LedgerOverBackend(backend, { ttlMs: options.ttlMs ?? 30_000, timeoutMs: 20_000, logger });
  const ledger = new LeasedLedger(store, { requests: options.requests ?? 64, share: 0.25, intervalMs: options.intervalMs ?? 200 });
  cleanups.push(async () => ledger.stopHeartbeat());
  return { ledger, store };
}

const team = (limitUsd: number): ApplicableBudget => ({
  id: `team:t-${randomBytes(3).toString('hex')}:0`,
  scope: 'team',
  subject: 't1',
  budget: { limit_usd: limitUsd, window: { period: 'month' } },
});
let n = 0;
const reservation = (micros: number, tokens = 0): Reservation => ({ id: `req-${++n}-${randomBytes(4).toString('hex')}`, micros, tokens });

describe.each(['sqlite', 'postgres', 'redis'] as const)('budget leases on %s', (kind) => {
  it('200 concurrent requests from two instances at a budget with 1 % left: spend never exceeds the limit, refused ones cost nothing', async () => {
    const [ba, bb] = await backends(kind);
    const a = leased(ba);
    const b = leased(bb);
    const budget = team(10);
    const seed = reservation(9_900_000);
    expect((await a.store.reserve([budget], seed)).ok).toBe(true);
    await a.store.settle([budget], seed, { micros: 9_900_000, tokens: 0 });
    // Worst case 2,500 µ$, real cost 1,900 µ$: at most 40 fit ($0.10 / 2,500) at once, 52 in all.
    const outcomes = await Promise.all(
      Array.from({ length: 200 }, async (_, i) => {
        const ledger = i % 2 ? a.ledger : b.ledger;
        const r = reservation(2500);
        const res = await ledger.reserve([budget], r);
        if (!res.ok) return 'refused';
        await new Promise((done) => setImmediate(done));
        await ledger.settle([budget], r, { micros: 1900, tokens: 0 });
        return 'served';
      }),
    );
    const served = outcomes.filter((o) => o === 'served').length;
    expect(served).toBeGreaterThan(0);
    expect(served).toBeLessThanOrEqual(52);
    await a.ledger.close();
    await b.ledger.close();
    const spent = (await a.store.spent([budget])).get(budget.id)!;
    expect(spent.micros).toBe(9_900_000 + served * 1900);
    expect(spent.micros).toBeLessThanOrEqual(10_000_000);
  });

  it('a request still running does not hold back the spend of those settled beside it: it is carried to a new reservation', async () => {
    const [backend] = await backends(kind);
    const { ledger, store } = leased(backend, { intervalMs: 100 });
    const budget = team(10);
    const long = reservation(5_000);
    expect((await ledger.reserve([budget], long)).ok).toBe(true);
    const short = reservation(5_000);
    expect((await ledger.reserve([budget], short)).ok).toBe(true);
    // Answered once its spend is in the store, while `long` still holds its lease.
    await ledger.settle([budget], short, { micros: 3_000, tokens: 0 });
    expect((await store.spent([budget])).get(budget.id)!.micros).toBe(3_000);
    // What `long` holds is still reserved in the store: the rest of the budget is all another instance can take.
    const rest = reservation(10_000_000 - 3_000 - 5_000);
    expect((await store.reserve([budget], rest)).ok).toBe(true);
    expect((await store.reserve([budget], reservation(1))).ok).toBe(false);
    await store.settle([budget], rest, { micros: 0, tokens: 0 });
    await ledger.settle([budget], long, { micros: 4_000, tokens: 0 });
    expect((await store.spent([budget])).get(budget.id)!.micros).toBe(7_000);
    await ledger.close();
  });

  it('spent() counts what this instance settled on leases before it reaches the store', async () => {
    const [backend] = await backends(kind);
    const { ledger, store } = leased(backend, { intervalMs: 60_000 });
    const budget = team(10);
    const r = reservation(5_000);
    expect((await ledger.reserve([budget], r)).ok).toBe(true);
    const landed = ledger.settle([budget], r, { micros: 2_500, tokens: 0 });
    expect((await ledger.spent([budget])).get(budget.id)!.micros).toBe(2_500);
    expect((await store.spent([budget])).get(budget.id)!.micros).toBe(0);
    // Closing returns the lease: the spend lands and the settle is answered.
    await ledger.close();
    await landed;
    expect((await store.spent([budget])).get(budget.id)!.micros).toBe(2_500);
  });

  it('reserveNow answers in the same turn where every open lease has room, and otherwise holds nothing', async () => {
    const [backend] = await backends(kind);
    const { ledger, store } = leased(backend, { requests: 2, intervalMs: 60_000 });
    const a = team(10);
    const b = team(10);
    // no lease yet: only reserve can answer
    expect(ledger.reserveNow([a], reservation(5_000))).toBeUndefined();
    expect(ledger.liveCount).toBe(0);
    // reserve takes a lease of two such requests and holds one of them
    const first = reservation(5_000);
    expect((await ledger.reserve([a], first)).ok).toBe(true);
    // b has no lease: nothing is held on a's either (else the next one would not fit)
    expect(ledger.reserveNow([a, b], reservation(5_000))).toBeUndefined();
    const second = reservation(5_000);
    const now = ledger.reserveNow([a], second);
    expect(now).toMatchObject({ ok: true, reservation: second });
    expect(typeof (now as { remainingMicros?: number }).remainingMicros).toBe('number');
    expect(ledger.liveCount).toBe(2);
    // the open lease is full now
    expect(ledger.reserveNow([a], reservation(5_000))).toBeUndefined();
    // settles answer once the spend has landed: the lease is open for a minute, so close returns it
    const settled = [ledger.settle([a], first, { micros: 1_000, tokens: 0 }), ledger.settle([a], second, { micros: 2_000, tokens: 0 })];
    await ledger.close();
    await Promise.all(settled);
    expect((await store.spent([a])).get(a.id)!.micros).toBe(3_000);
  });

  it('the remaining money a reservation answers is the limit less what was settled and what live requests hold, across leases taken, carried and settled', async () => {
    const [backend] = await backends(kind);
    // Short leases: many are taken, carried while requests still hold them, and settled, with answers coming back in any order.
    const { ledger } = leased(backend, { intervalMs: 30 });
    const budget = team(1);
    let settled = 0;
    let checked = 0;
    const off: number[] = [];
    let next = 0;
    const worker = async () => {
      for (let k = 0; k < 25; k++) {
        const r = reservation(5_000);
        const res = await ledger.reserve([budget], r);
        expect(res.ok).toBe(true);
        // A request that reserves nothing, in this very turn: what it is answered beside what is true now.
        const probe = reservation(0);
        const now = ledger.reserveNow([budget], probe);
        if (now?.ok) {
          checked++;
          const truth = 1_000_000 - settled - (ledger.liveCount - 1) * 5_000;
          if (now.remainingMicros !== truth) off.push(now.remainingMicros! - truth);
          ledger.settleThen([budget], probe, { micros: 0, tokens: 0 }, () => undefined);
        }
        await new Promise((done) => setTimeout(done, (next++ % 5) + 1));
        settled += 1_000;
        ledger.settleThen([budget], r, { micros: 1_000, tokens: 0 }, () => undefined);
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    expect(checked).toBeGreaterThan(300);
    expect(off).toEqual([]);
    await ledger.close();
  });

  it('settleThen answers once, after the spend has landed, with what settle answers', async () => {
    const [backend] = await backends(kind);
    const { ledger, store } = leased(backend, { intervalMs: 60_000 });
    const budget = team(10);
    const viaPromise = reservation(5_000);
    const viaCallback = reservation(5_000);
    expect((await ledger.reserve([budget], viaPromise)).ok).toBe(true);
    expect((await ledger.reserve([budget], viaCallback)).ok).toBe(true);
    const answers: Array<{ err: Error | undefined; remaining: number | undefined; storeMicros: number }> = [];
    let storeMicros = 0;
    ledger.settleThen([budget], viaCallback, { micros: 1_000, tokens: 0 }, (err, remaining) => {
      answers.push({ err, remaining, storeMicros });
    });
    const promised = ledger.settle([budget], viaPromise, { micros: 2_000, tokens: 0 });
    // The lease is open for a minute: nothing has reached the store, so neither has answered.
    await new Promise((done) => setTimeout(done, 30));
    expect(answers).toEqual([]);
    storeMicros = -1;
    await ledger.close();
    const viaSettle = await promised;
    expect(answers).toHaveLength(1);
    expect(answers[0]!.err).toBeUndefined();
    // called from the lease's return, once the store had the spend
    expect(answers[0]!.storeMicros).toBe(-1);
    expect((await store.spent([budget])).get(budget.id)!.micros).toBe(3_000);
    // the tightest money budget's rest after each settle: both were settled on the same lease
    expect(typeof answers[0]!.remaining).toBe('number');
    expect(typeof viaSettle.remainingMicros).toBe('number');
  });

  it('a request whose lease went back before it settled (the ledger closed under it) settles in the store alone, answered once', async () => {
    const [backend] = await backends(kind);
    const { ledger, store } = leased(backend, { intervalMs: 60_000 });
    const budget = team(10);
    const live = reservation(5_000);
    expect((await ledger.reserve([budget], live)).ok).toBe(true);
    // The lease goes back with nothing spent on it while the request still runs.
    await ledger.close();
    expect((await store.spent([budget])).get(budget.id)!.micros).toBe(0);
    const answers: Array<Error | undefined> = [];
    await new Promise<void>((done) =>
      ledger.settleThen([budget], live, { micros: 1_500, tokens: 0 }, (err) => {
        answers.push(err);
        done();
      }),
    );
    await new Promise((done) => setTimeout(done, 20));
    expect(answers).toEqual([undefined]);
    expect((await store.spent([budget])).get(budget.id)!.micros).toBe(1_500);
  });

  it('the lease of an instance that died expires with its heartbeat: another instance then has the whole budget', async () => {
    const [ba, bb] = await backends(kind);
    const dying = leased(ba, { ttlMs: 300, intervalMs: 60_000 });
    const other = leased(bb, { ttlMs: 300 });
    const budget = team(1);
    // The lease takes 64 worst cases ($0.64) of the $1.
    const r = reservation(10_000);
    expect((await dying.ledger.reserve([budget], r)).ok).toBe(true);
    expect((await other.store.reserve([budget], reservation(500_000))).ok).toBe(false);
    dying.ledger.stopHeartbeat();
    let freed = false;
    for (let i = 0; i < 100 && !freed; i++) {
      await new Promise((done) => setTimeout(done, 50));
      const probe = reservation(1_000_000);
      const res = await other.store.reserve([budget], probe);
      if (res.ok) {
        freed = true;
        await other.store.settle([budget], probe, { micros: 0, tokens: 0 });
      }
    }
    expect(freed).toBe(true);
  });
});

describe('budget leases with the store down', () => {
  it('a lease that cannot be taken answers storeDown, and holds nothing', async () => {
    const down: LedgerBackend = {
      reserve: () => Promise.reject(Object.assign(new Error('down'), { code: 'ECONNREFUSED' })),
      settle: () => Promise.reject(Object.assign(new Error('down'), { code: 'ECONNREFUSED' })),
      spent: () => Promise.reject(Object.assign(new Error('down'), { code: 'ECONNREFUSED' })),
      extend: () => Promise.resolve(),
    };
    const { ledger } = leased(down);
    expect(await ledger.reserve([team(1)], reservation(100))).toEqual({ ok: false, storeDown: true });
    expect(ledger.liveCount).toBe(0);
    await ledger.close();
  });
});
