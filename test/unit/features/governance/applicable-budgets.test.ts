import { describe, expect, it } from 'vitest';
import { applicableBudgets, indexConfigBudgets } from '../../../../src/features/governance/budgets/applicable-budgets.js';
import type { ApplicableBudget, GatewayKey } from '../../../../src/features/governance/governance-types.js';

const config = indexConfigBudgets({
  onStoreDown: 'refuse',
  key: { k1: { limit_usd: 5 } },
  user: { alice: [{ limit_usd: 10 }, { limit_tokens: 1000, window: { period: 'day' } }], bob: { limit_usd: 1 } },
  team: { search: { limit_usd: 100, action: 'audit' } },
  organization: { acme: { limit_usd: 1000 } },
  customer: { c9: { limit_usd: 2 } },
  model: { 'gpt-4o': { limit_usd: 50 } },
  credential: { 'openai-eu': { limit_usd: 500 }, 'openai-us': { limit_usd: 400 } },
});

const key: GatewayKey = { id: 'k1', user: 'alice', team: 'search', organization: 'acme', budgets: [{ limit_usd: 1, window: { period: 'day' } }] };

describe('applicable budgets', () => {
  it("every config budget whose scope and subject match, the key's own, in scope order, with stable ids", () => {
    const ids = applicableBudgets(config, { key, model: 'gpt-4o', credentials: ['openai-eu'] }).map((b) => b.id);
    expect(ids).toEqual(['key:k1:0', 'key:k1:own0', 'user:alice:0', 'user:alice:1', 'team:search:0', 'organization:acme:0', 'model:gpt-4o:0', 'credential:openai-eu:0']);
  });

  it('leaves out what does not match: another user, no customer, another model, credentials not used', () => {
    const other: GatewayKey = { id: 'k2', user: 'bob' };
    const list = applicableBudgets(config, { key: other, model: 'claude' });
    expect(list.map((b) => b.id)).toEqual(['user:bob:0']);
    expect(list[0]).toEqual({ id: 'user:bob:0', scope: 'user', subject: 'bob', budget: { limit_usd: 1 } });
  });

  it('the customer a key names, and every credential a request may spend', () => {
    const ids = applicableBudgets(config, { key: { id: 'k3', user: 'carol', customer: 'c9' }, credentials: ['openai-eu', 'openai-us'] }).map((b) => b.id);
    expect(ids).toEqual(['customer:c9:0', 'credential:openai-eu:0', 'credential:openai-us:0']);
  });

  it('adds budgets from the admin API, each id once', () => {
    const api: ApplicableBudget[] = [
      { id: 'bdg_1', scope: 'team', subject: 'search', budget: { limit_usd: 3 } },
      { id: 'bdg_1', scope: 'team', subject: 'search', budget: { limit_usd: 3 } },
      { id: 'user:bob:0', scope: 'user', subject: 'bob', budget: { limit_usd: 1 } },
    ];
    const ids = applicableBudgets(config, { key: { id: 'k2', user: 'bob' } }, api).map((b) => b.id);
    expect(ids).toEqual(['user:bob:0', 'bdg_1']);
  });

  it("no budgets config: only the key's own", () => {
    expect(applicableBudgets(indexConfigBudgets(undefined), { key }).map((b) => b.id)).toEqual(['key:k1:own0']);
  });
});
