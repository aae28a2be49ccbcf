import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { storeCapability } from '../../../../src/kernel/store/store-capability.js';
import { BUDGET_LEDGER, budgetsCapability, CONFIG_BUDGETS, reservationTtlMs, storeTimeoutMs } from '../../../../src/features/governance/budgets/budgets-capability.js';
import { applicableBudgets } from '../../../../src/features/governance/budgets/applicable-budgets.js';
import { makeServices } from '../../../helpers/services.js';
import { dropSharedState, REDIS_URL } from '../../../helpers/shared-stores.js';

const dir = mkdtempSync(join(tmpdir(), 'budgets-cap-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('budgets capability', () => {
  it('reads budgets.reservationTtl', () => {
    expect(reservationTtlMs(undefined)).toBe(30_000);
    expect(reservationTtlMs('45s')).toBe(45_000);
    expect(reservationTtlMs('2m')).toBe(120_000);
    expect(reservationTtlMs('1h')).toBe(3_600_000);
    expect(() => reservationTtlMs('0s')).toThrow(/reservationTtl/);
  });

  it('reads budgets.storeTimeout: 1 s on Redis and 5 s on the SQL store by default', () => {
    expect(storeTimeoutMs(undefined, true)).toBe(1000);
    expect(storeTimeoutMs(undefined, false)).toBe(5000);
    expect(storeTimeoutMs('250ms', true)).toBe(250);
    expect(storeTimeoutMs('10s', false)).toBe(10_000);
    expect(() => storeTimeoutMs('0ms', false)).toThrow(/storeTimeout/);
    expect(() => storeTimeoutMs('1m', false)).toThrow(/storeTimeout/);
  });

  it('on the SQL store: creates its tables and serves reserve → settle for the config budgets', async () => {
    const services = makeServices({ storage: { path: join(dir, 'a.db') }, budgets: { team: { search: { limit_usd: 0.001 } } } });
    await storeCapability.setup!(services);
    await budgetsCapability.setup!(services);
    const ledger = services.require(BUDGET_LEDGER);
    const budgets = applicableBudgets(services.require(CONFIG_BUDGETS), { key: { id: 'k', user: 'u', team: 'search' } });
    const r = { id: 'r1', micros: 800, tokens: 0 };
    expect(await ledger.reserve(budgets, r)).toMatchObject({ ok: true, remainingMicros: 200 });
    expect(await ledger.reserve(budgets, { id: 'r2', micros: 800, tokens: 0 })).toMatchObject({ ok: false, refusedBy: { id: 'team:search:0' } });
    expect(await ledger.settle(budgets, r, { micros: 300, tokens: 0 })).toEqual({ remainingMicros: 700 });
    await services.resources.closeAll();
  });

  it('with redis.url: the ledger is in Redis under redis.keyPrefix', async () => {
    const prefix = `test-budget-cap-${randomBytes(4).toString('hex')}:`;
    const services = makeServices({ storage: { path: join(dir, 'b.db') }, redis: { url: REDIS_URL, keyPrefix: prefix }, budgets: { user: { u: { limit_usd: 1 } } } });
    await storeCapability.setup!(services);
    await budgetsCapability.setup!(services);
    const ledger = services.require(BUDGET_LEDGER);
    const budgets = applicableBudgets(services.require(CONFIG_BUDGETS), { key: { id: 'k', user: 'u' } });
    const r = { id: 'r1', micros: 10, tokens: 0 };
    // Set-up waited for the client to connect.
    expect(await ledger.reserve(budgets, r)).toMatchObject({ ok: true, remainingMicros: 999_990 });
    await ledger.settle(budgets, r, { micros: 10, tokens: 0 });
    const { Redis } = await import('ioredis');
    const check = new Redis(REDIS_URL);
    expect(await check.keys(`${prefix}budget:user:u:0:*`)).toContain(`${prefix}budget:user:u:0:s:c:month:UTC`);
    await check.quit();
    await services.resources.closeAll();
    await dropSharedState('redis', prefix, '');
  });

  it('refuses an unknown time zone at start-up, naming the budget', async () => {
    const services = makeServices({ storage: { path: join(dir, 'c.db') }, budgets: { team: { search: [{ limit_usd: 1, window: { timezone: 'Mars/Olympus' } }] } } });
    await storeCapability.setup!(services);
    await expect(Promise.resolve(budgetsCapability.setup!(services))).rejects.toMatchObject({
      problems: ['budgets.team.search[0].window.timezone: unknown time zone "Mars/Olympus"'],
    });
    await services.resources.closeAll();
  });
});
