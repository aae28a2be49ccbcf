import { describe, expect, it } from 'vitest';
import { ApiBudgets, pickBudgets } from '../../../../src/features/governance/tenants/api-budgets.js';
import { TenantService } from '../../../../src/features/governance/tenants/tenant-service.js';
import { TENANT_MIGRATIONS, TenantStore } from '../../../../src/features/governance/tenants/tenant-store.js';
import { SqliteStore } from '../../../../src/kernel/store/sqlite/sqlite-store.js';

async function setup(ttlMs: number) {
  const sql = new SqliteStore(':memory:');
  await sql.migrate(TENANT_MIGRATIONS);
  const store = new TenantStore(sql);
  let reads = 0;
  const counting = Object.assign(Object.create(store) as TenantStore, {
    list: (kind: Parameters<TenantStore['list']>[0]) => (reads++, store.list(kind)),
  });
  const budgets = new ApiBudgets(counting, ttlMs);
  // One instance writes through a service that invalidates; `other` stands for another instance's writes.
  const here = new TenantService(store, undefined, undefined, (kind) => kind === 'budget' && budgets.invalidate());
  const other = new TenantService(store, undefined, undefined);
  return { sql, budgets, here, other, reads: () => reads };
}

describe('API budgets for the budget engine', () => {
  it('answers the budgets of the request subjects, row ids as ids, in scope order', async () => {
    const { sql, budgets, here } = await setup(60_000);
    const team = await here.create('budget', { scope: 'team', subject: 'alpha', limit_usd: 5 });
    const user = await here.create('budget', { scope: 'user', subject: 'alice', limit_tokens: 10 });
    await here.create('budget', { scope: 'team', subject: 'beta', limit_usd: 1 });
    expect(pickBudgets(await budgets.current(), { team: 'alpha', user: 'alice', key: 'tok_x' })).toEqual([
      { id: user.id, scope: 'user', subject: 'alice', budget: { limit_tokens: 10 } },
      { id: team.id, scope: 'team', subject: 'alpha', budget: { limit_usd: 5 } },
    ]);
    await sql.close();
  });

  it("reads the store once per TTL; a write on this instance is seen at once, another instance's after the TTL", async () => {
    const { sql, budgets, here, other, reads } = await setup(60_000);
    expect(pickBudgets(await budgets.current(), { team: 'alpha' })).toEqual([]);
    pickBudgets(await budgets.current(), { team: 'alpha' });
    expect(reads()).toBe(1);
    await here.create('budget', { scope: 'team', subject: 'alpha', limit_usd: 5 });
    expect(pickBudgets(await budgets.current(), { team: 'alpha' })).toHaveLength(1);
    expect(reads()).toBe(2);
    await other.create('budget', { scope: 'team', subject: 'alpha', limit_usd: 9 });
    expect(pickBudgets(await budgets.current(), { team: 'alpha' })).toHaveLength(1);
    await sql.close();

    const short = await setup(0);
    pickBudgets(await short.budgets.current(), { team: 'alpha' });
    await short.other.create('budget', { scope: 'team', subject: 'alpha', limit_usd: 9 });
    expect(pickBudgets(await short.budgets.current(), { team: 'alpha' })).toHaveLength(1);
    await short.sql.close();
  });
});
