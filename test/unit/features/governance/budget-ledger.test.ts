import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import type { Budget } from '../../../../src/generated/governance/budget.js';
import type { ApplicableBudget, BudgetScope, Reservation } from '../../../../src/features/governance/governance-types.js';
import { createLogger } from '../../../../src/kernel/observability/logger.js';
import { SqliteStore } from '../../../../src/kernel/store/sqlite/sqlite-store.js';
import { PostgresStore } from '../../../../src/kernel/store/postgres/postgres-store.js';
import { REDIS_CLIENT_OPTIONS } from '../../../../src/kernel/store/redis-client.js';
import type { SqlStore } from '../../../../src/kernel/store/sql-store.js';
import { LedgerOverBackend } from '../../../../src/features/governance/budgets/budget-ledger.js';
import { BUDGET_MIGRATIONS } from '../../../../src/features/governance/budgets/budget-migrations.js';
import { SqlLedgerBackend } from '../../../../src/features/governance/budgets/sql-ledger-backend.js';
import { RedisLedgerBackend } from '../../../../src/features/governance/budgets/redis-ledger-backend.js';
import type { BudgetAlert } from '../../../../src/features/governance/budgets/budget-alerts.js';
import { dropSharedState, PG_URL, REDIS_URL } from '../../../helpers/shared-stores.js';
import { closedPort } from '../../../helpers/closed-port.js';

const logger = createLogger(process.env.DBG ? 'warn' : 'silent');
type Kind = 'sqlite' | 'sqlite-two-connections' | 'postgres' | 'redis';

interface Pair {
  a: LedgerOverBackend;
  b: LedgerOverBackend;
  alerts: BudgetAlert[];
}

const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Two ledgers sharing one store: two instances on one PostgreSQL schema or one Redis prefix; on SQLite (one instance) two ledgers over its one store. */
async function twoInstances(kind: Kind, options: { ttlMs?: number; timeoutMs?: number } = {}): Promise<Pair> {
  const alerts: BudgetAlert[] = [];
  const ledgerOptions = { ttlMs: options.ttlMs ?? 30_000, timeoutMs: options.timeoutMs ?? 20_000, logger, alerts: (a: BudgetAlert) => alerts.push(a) };
  const run = randomBytes(6).toString('hex');
  if (kind === 'redis') {
    const prefix = `test-budgets-${run}:`;
    const clients = [new Redis(REDIS_URL, REDIS_CLIENT_OPTIONS), new Redis(REDIS_URL, REDIS_CLIENT_OPTIONS)];
    await Promise.all(clients.map((c) => c.connect()));
    const [a, b] = clients.map((c) => new LedgerOverBackend(new RedisLedgerBackend(c, prefix), ledgerOptions));
    cleanups.push(async () => {
      a!.stopHeartbeat();
      b!.stopHeartbeat();
      await dropSharedState('redis', prefix, '');
      for (const c of clients) await c.quit();
    });
    return { a: a!, b: b!, alerts };
  }
  let stores: SqlStore[];
  if (kind === 'postgres') {
    const schema = `test_budgets_${run}`;
    const pgs = [new PostgresStore(PG_URL, schema), new PostgresStore(PG_URL, schema)];
    for (const s of pgs) await s.open();
    stores = pgs;
    cleanups.push(async () => {
      for (const s of stores) await s.close();
      await dropSharedState('postgres', '', schema);
    });
  } else if (kind === 'sqlite-two-connections') {
    // Two workers of one instance: two connections to one file (each ledger keeps its rows in
    // memory only while the other has not committed).
    const dir = mkdtempSync(join(tmpdir(), 'budgets-'));
    const files = [new SqliteStore(join(dir, 'gateway.db')), new SqliteStore(join(dir, 'gateway.db'))];
    stores = files;
    cleanups.push(async () => {
      for (const s of files) await s.close();
      rmSync(dir, { recursive: true, force: true });
    });
  } else {
    // SQLite serves one instance: two ledgers over its one store.
    const dir = mkdtempSync(join(tmpdir(), 'budgets-'));
    const sqlite = new SqliteStore(join(dir, 'gateway.db'));
    stores = [sqlite, sqlite];
    cleanups.push(async () => {
      await sqlite.close();
      rmSync(dir, { recursive: true, force: true });
    });
  }
  for (const s of stores) await s.migrate(BUDGET_MIGRATIONS);
  const [a, b] = stores.map((s) => new LedgerOverBackend(new SqlLedgerBackend(s), ledgerOptions));
  cleanups.push(async () => {
    a!.stopHeartbeat();
    b!.stopHeartbeat();
  });
  return { a: a!, b: b!, alerts };
}

function budget(id: string, b: Budget, scope: BudgetScope = 'team', subject = 't1'): ApplicableBudget {
  return { id, scope, subject, budget: b };
}

let n = 0;
const reservation = (micros: number, tokens = 0): Reservation => ({ id: `req-${++n}-${randomBytes(4).toString('hex')}`, micros, tokens });
const at = (iso: string) => Date.parse(iso);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(['sqlite', 'sqlite-two-connections', 'postgres', 'redis'] as const)('budget ledger on %s', (kind) => {
  it('200 concurrent reserve → settle from two instances at a budget with 1 % left: settled spend never exceeds the limit, refused ones cost nothing', async () => {
    const { a, b } = await twoInstances(kind);
    const team = [budget('team:t1:0', { limit_usd: 1, window: { period: 'month' } })];
    const now = at('2026-06-15T12:00:00Z');
    // 99 % spent already.
    const first = reservation(990_000);
    expect((await a.reserve(team, first, now)).ok).toBe(true);
    await a.settle(team, first, { micros: 990_000, tokens: 0 }, now);
    let charged = 0;
    const outcomes = await Promise.all(
      Array.from({ length: 200 }, async (_, i) => {
        const ledger = i % 2 ? a : b;
        const r = reservation(1000);
        const res = await ledger.reserve(team, r, now);
        if (!res.ok) {
          expect('refusedBy' in res && res.refusedBy.id).toBe('team:t1:0');
          return 'refused';
        }
        // Every fifth request fails upstream: released, costs nothing; the others cost 200..1000.
        const cost = i % 5 === 0 ? 0 : 200 + ((i * 37) % 801);
        charged += cost;
        await ledger.settle(team, r, { micros: cost, tokens: 10 }, now);
        return 'served';
      }),
    );
    const spent = (await b.spent(team, now)).get('team:t1:0')!;
    expect(spent.micros).toBe(990_000 + charged);
    expect(spent.micros).toBeLessThanOrEqual(1_000_000);
    expect(outcomes.filter((o) => o === 'served').length).toBeGreaterThanOrEqual(10);
    expect(outcomes.filter((o) => o === 'refused').length).toBeGreaterThan(0);
    expect(spent.resetAt).toBe(at('2026-07-01T00:00:00Z') / 1000);
  });

  it('a window boundary crossed under load loses no spend (settles land in the window they happen in)', async () => {
    const { a, b } = await twoInstances(kind);
    const day = [budget('user:u1:0', { limit_usd: 100, window: { period: 'day', timezone: 'Europe/Paris' } }, 'user', 'u1')];
    const before = at('2026-03-28T22:59:59.500Z'); // 23:59:59.5 in Paris
    const after = at('2026-03-28T23:00:00.200Z'); // the next local day (a 23-hour one)
    let total = 0;
    await Promise.all(
      Array.from({ length: 100 }, async (_, i) => {
        const ledger = i % 2 ? a : b;
        const r = reservation(5000);
        const res = await ledger.reserve(day, r, before);
        expect(res.ok).toBe(true);
        const cost = 1000 + i;
        total += cost;
        await ledger.settle(day, r, { micros: cost, tokens: 0 }, i % 3 ? after : before);
      }),
    );
    const old = (await a.spent(day, before)).get('user:u1:0')!;
    const fresh = (await b.spent(day, after)).get('user:u1:0')!;
    expect(old.micros + fresh.micros).toBe(total);
    expect(old.micros).toBeGreaterThan(0);
    expect(fresh.micros).toBeGreaterThan(0);
    expect(old.resetAt).toBe(at('2026-03-28T23:00:00Z') / 1000);
    expect(fresh.resetAt).toBe(at('2026-03-29T22:00:00Z') / 1000);
  });

  it('an instance that dies frees its reservations within the TTL; a live one keeps them by its heartbeat', async () => {
    const { a, b } = await twoInstances(kind, { ttlMs: 600 });
    const key = [budget('key:k1:0', { limit_usd: 0.01, window: { period: 'total' } }, 'key', 'k1')];
    const held = reservation(10_000);
    expect((await a.reserve(key, held)).ok).toBe(true);
    // The live instance's heartbeat keeps its reservation well past the TTL.
    await sleep(1500);
    const refused = await b.reserve(key, reservation(1));
    expect(refused).toMatchObject({ ok: false, refusedBy: { id: 'key:k1:0' }, resetAt: null });
    // a dies: no heartbeat, no settle.
    a.stopHeartbeat();
    await sleep(900);
    const later = reservation(10_000);
    expect(await b.reserve(key, later)).toMatchObject({ ok: true, remainingMicros: 0 });
    await b.settle(key, later, { micros: 4000, tokens: 0 });
    expect((await b.spent(key)).get('key:k1:0')!.micros).toBe(4000);
  });

  it('audit budgets never refuse, see reservations and record spend; a blocking one beside refuses alone', async () => {
    const { a, b } = await twoInstances(kind);
    const audit = budget('team:t2:0', { limit_usd: 0.0015, action: 'audit' }, 'team', 't2');
    const first = reservation(1000);
    expect(await a.reserve([audit], first)).toMatchObject({ ok: true, remainingMicros: 500 });
    const second = reservation(1000);
    // Over the audit limit, still served; it saw the first reservation (1000 + 1000 > 1500).
    expect(await b.reserve([audit], second)).toMatchObject({ ok: true, remainingMicros: 0 });
    await a.settle([audit], first, { micros: 1200, tokens: 0 });
    await b.settle([audit], second, { micros: 900, tokens: 0 });
    expect((await a.spent([audit])).get('team:t2:0')!.micros).toBe(2100);

    const wide = budget('team:t3:0', { limit_usd: 0.005, action: 'audit' }, 'team', 't3');
    const live = reservation(1000);
    expect(await a.reserve([wide], live)).toMatchObject({ ok: true, remainingMicros: 4000 });
    expect(await b.reserve([wide], reservation(1000))).toMatchObject({ ok: true, remainingMicros: 3000 });

    // With a blocking budget that refuses, nothing is written to the audit one either.
    const block = budget('user:u9:0', { limit_tokens: 100 }, 'user', 'u9');
    const before = (await a.spent([wide])).get('team:t3:0')!;
    const res = await a.reserve([wide, block], reservation(1000, 500));
    expect(res).toMatchObject({ ok: false, refusedBy: { id: 'user:u9:0' } });
    expect(await a.reserve([wide], reservation(0))).toMatchObject({ ok: true, remainingMicros: 3000 });
    expect((await a.spent([wide])).get('team:t3:0')).toEqual(before);
  });

  it('names the first refusing budget in scope order, with its reset time; token limits count too', async () => {
    const { a } = await twoInstances(kind);
    const now = at('2026-01-07T10:00:00Z');
    const team = budget('team:t4:0', { limit_usd: 0.001, window: { period: 'week' } }, 'team', 't4');
    const model = budget('model:m:0', { limit_tokens: 10, window: { period: 'day' } }, 'model', 'm');
    const key = budget('key:k4:0', { limit_usd: 1, window: { period: '6h' } }, 'key', 'k4');
    expect(await a.reserve([model, team, key], reservation(5000, 50), now)).toEqual({ ok: false, refusedBy: team, resetAt: at('2026-01-12T00:00:00Z') / 1000 });
    expect(await a.reserve([model, team, key], reservation(500, 50), now)).toEqual({ ok: false, refusedBy: model, resetAt: at('2026-01-08T00:00:00Z') / 1000 });
    const ok = await a.reserve([model, team, key], reservation(500, 5), now);
    expect(ok).toMatchObject({ ok: true, remainingMicros: 500 });
  });

  it('rolling windows count the last period in 24 buckets; spend leaves as its bucket does', async () => {
    const { a, b } = await twoInstances(kind);
    const rolling = [budget('customer:c1:0', { limit_usd: 0.01, window: { period: '24h', kind: 'rolling' } }, 'customer', 'c1')];
    const t0 = at('2026-02-01T10:30:00Z');
    const r1 = reservation(6000);
    await a.reserve(rolling, r1, t0);
    await a.settle(rolling, r1, { micros: 6000, tokens: 0 }, t0);
    const r2 = reservation(3000);
    await b.reserve(rolling, r2, t0 + 5 * 3_600_000);
    await b.settle(rolling, r2, { micros: 3000, tokens: 0 }, t0 + 5 * 3_600_000);
    // 20 h later both count: a reservation of 2000 does not fit; the reset is when 10:00's bucket leaves (a day after it began).
    const t1 = t0 + 20 * 3_600_000;
    expect(await a.reserve(rolling, reservation(2000), t1)).toEqual({ ok: false, refusedBy: rolling[0], resetAt: at('2026-02-02T10:00:00Z') / 1000 });
    // Once 10:00's bucket left, only 3000 remain counted, until 15:00's leaves.
    const t2 = at('2026-02-02T10:00:00Z');
    expect((await b.spent(rolling, t2)).get('customer:c1:0')).toEqual({ micros: 3000, tokens: 0, resetAt: at('2026-02-02T15:00:00Z') / 1000 });
    expect(await a.reserve(rolling, reservation(2000), t2)).toMatchObject({ ok: true, remainingMicros: 5000 });
  });

  it('alerts fire once per window per threshold across two instances', async () => {
    const { a, b, alerts } = await twoInstances(kind);
    const team = [budget('team:t5:0', { name: 'team five', limit_usd: 0.01, window: { period: 'day' }, alerts: [50, 90], action: 'audit' }, 'team', 't5')];
    const run = async (now: number) =>
      Promise.all(
        Array.from({ length: 40 }, async (_, i) => {
          const ledger = i % 2 ? a : b;
          const r = reservation(300);
          await ledger.reserve(team, r, now);
          await ledger.settle(team, r, { micros: 300, tokens: 3 }, now);
        }),
      );
    await run(at('2026-04-01T08:00:00Z'));
    expect(alerts.map((x) => x.threshold).sort()).toEqual([50, 90]);
    const fifty = alerts.find((x) => x.threshold === 50)!;
    expect(fifty).toMatchObject({ budget: 'team five', scope: 'team', subject: 't5', limit_usd: '0.010000', window_reset: at('2026-04-02T00:00:00Z') / 1000 });
    expect(Number(fifty.spent_usd) * 1e6).toBeGreaterThanOrEqual(5000);
    // The next day is a new window: each threshold once more.
    await run(at('2026-04-02T08:00:00Z'));
    expect(alerts.map((x) => x.threshold).sort()).toEqual([50, 50, 90, 90]);
  });

  it('a settle tried twice (a retry after a timeout) is counted once', async () => {
    const { a, b } = await twoInstances(kind);
    const key = [budget('key:k6:0', { limit_usd: 1 }, 'key', 'k6')];
    const r = reservation(1000);
    await a.reserve(key, r);
    await a.reserve(key, reservation(2000));
    // The remaining money counts the spend and the other live reservation, not the settled one.
    expect(await a.settle(key, r, { micros: 700, tokens: 0 })).toEqual({ remainingMicros: 997_300 });
    expect(await b.settle(key, r, { micros: 700, tokens: 0 })).toEqual({ remainingMicros: 997_300 });
    expect((await a.spent(key)).get('key:k6:0')!.micros).toBe(700);
  });
});

describe('budget ledger: store down', () => {
  const servers: Server[] = [];
  afterAll(() => servers.forEach((s) => s.close()));

  const team = [budget('team:t1:0', { limit_usd: 1 })];

  it('Redis at a closed port: reserve answers storeDown', async () => {
    const client = new Redis(`redis://127.0.0.1:${await closedPort()}`, REDIS_CLIENT_OPTIONS);
    client.on('error', () => undefined);
    client.connect().catch(() => undefined);
    const ledger = new LedgerOverBackend(new RedisLedgerBackend(client, 'x:'), { ttlMs: 30_000, logger });
    expect(await ledger.reserve(team, reservation(1))).toEqual({ ok: false, storeDown: true });
    client.disconnect();
  });

  it('PostgreSQL at a closed port: reserve answers storeDown', async () => {
    const store = new PostgresStore(`postgres://postgres@127.0.0.1:${await closedPort()}/test`);
    const ledger = new LedgerOverBackend(new SqlLedgerBackend(store), { ttlMs: 30_000, logger });
    expect(await ledger.reserve(team, reservation(1))).toEqual({ ok: false, storeDown: true });
    await store.close();
  });

  it('a store that accepts connections and never answers: reserve answers storeDown after the timeout', async () => {
    const silent = createServer(() => undefined);
    servers.push(silent);
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const store = new PostgresStore(`postgres://postgres@127.0.0.1:${(silent.address() as { port: number }).port}/test`);
    const ledger = new LedgerOverBackend(new SqlLedgerBackend(store), { ttlMs: 30_000, logger });
    expect(await ledger.reserve(team, reservation(1))).toEqual({ ok: false, storeDown: true });
    // The pool's connection attempt is still pending; it is dropped with the server.
    silent.close();
    void store.close().catch(() => undefined);
  });

  it('a settle that cannot reach the store is tried again by the heartbeat and lands once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'budgets-'));
    const store = new SqliteStore(join(dir, 'gateway.db'));
    await store.migrate(BUDGET_MIGRATIONS);
    const backend = new SqlLedgerBackend(store);
    let down = true;
    const flaky: typeof backend = Object.assign(Object.create(backend) as typeof backend, {
      settle: (...args: Parameters<typeof backend.settle>) => (down ? Promise.reject(Object.assign(new Error('down'), { code: 'ECONNREFUSED' })) : backend.settle(...args)),
    });
    const ledger = new LedgerOverBackend(flaky, { ttlMs: 300, logger });
    const r = reservation(1000);
    expect((await ledger.reserve(team, r)).ok).toBe(true);
    expect(await ledger.settle(team, r, { micros: 800, tokens: 0 })).toEqual({});
    expect((await ledger.spent(team)).get('team:t1:0')!.micros).toBe(0);
    down = false;
    await sleep(400);
    expect((await ledger.spent(team)).get('team:t1:0')!.micros).toBe(800);
    expect(ledger.liveCount).toBe(0);
    await ledger.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
});
