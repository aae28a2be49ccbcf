import type { Capability } from '../../src/kernel/capability.js';
import { CAPABILITIES } from '../../src/capabilities.js';
import type { ApplicableBudget, BudgetLedger, GatewayKey, Reservation, ReserveResult } from '../../src/features/governance/governance-types.js';
import { METERING_INPUTS, type MeteringInputs } from '../../src/features/governance/metering/metering-inputs.js';
import { compilePrice, type PriceProblem } from '../../src/features/governance/prices/price-table.js';
import type { ModelPrice } from '../../src/features/governance/prices/cost.js';
import type { PriceEntry } from '../../src/generated/governance/price-table.js';

/**
 * A BudgetLedger in memory (the budgets part writes the real ones): every budget must fit the
 * reservation, all or none; settle replaces the reservation by the actual cost. `down` makes
 * every call fail as an unreachable store would.
 */
export class MemoryBudgetLedger implements BudgetLedger {
  readonly spentBy = new Map<string, { micros: number; tokens: number }>();
  private readonly held = new Map<string, { micros: number; tokens: number; budgets: string[] }>();
  down = false;
  reserves = 0;
  settles: { micros: number; tokens: number }[] = [];

  private used(id: string): { micros: number; tokens: number } {
    const spent = this.spentBy.get(id) ?? { micros: 0, tokens: 0 };
    let micros = spent.micros;
    let tokens = spent.tokens;
    for (const r of this.held.values()) {
      if (!r.budgets.includes(id)) continue;
      micros += r.micros;
      tokens += r.tokens;
    }
    return { micros, tokens };
  }

  async reserve(budgets: readonly ApplicableBudget[], amount: Reservation): Promise<ReserveResult> {
    this.reserves++;
    if (this.down) return { ok: false, storeDown: true };
    let remaining: number | undefined;
    for (const b of budgets) {
      const used = this.used(b.id);
      const limit = b.budget.limit_usd === undefined ? undefined : Math.round(b.budget.limit_usd * 1e6);
      if (limit !== undefined && used.micros + amount.micros > limit) return { ok: false, refusedBy: b, resetAt: 1_900_000_000 };
      if (b.budget.limit_tokens !== undefined && used.tokens + amount.tokens > b.budget.limit_tokens) return { ok: false, refusedBy: b, resetAt: 1_900_000_000 };
      if (limit !== undefined) remaining = Math.min(remaining ?? Infinity, limit - used.micros - amount.micros);
    }
    this.held.set(amount.id, { micros: amount.micros, tokens: amount.tokens, budgets: budgets.map((b) => b.id) });
    return remaining === undefined ? { ok: true, reservation: amount } : { ok: true, reservation: amount, remainingMicros: remaining };
  }

  async settle(budgets: readonly ApplicableBudget[], reservation: Reservation, actual: { micros: number; tokens: number }): Promise<{ remainingMicros?: number }> {
    if (this.down) throw new Error('store unreachable');
    this.held.delete(reservation.id);
    this.settles.push(actual);
    for (const b of budgets) {
      const s = this.spentBy.get(b.id) ?? { micros: 0, tokens: 0 };
      this.spentBy.set(b.id, { micros: s.micros + actual.micros, tokens: s.tokens + actual.tokens });
    }
    return {};
  }

  async spent(budgets: readonly ApplicableBudget[]) {
    return new Map(budgets.map((b) => [b.id, { ...(this.spentBy.get(b.id) ?? { micros: 0, tokens: 0 }), resetAt: 1_900_000_000 }]));
  }
}

/** Prices by `provider/model`, compiled as the price table compiles them. */
export function testPrices(entries: Record<string, Omit<PriceEntry, 'date' | 'source'>>): Map<string, ModelPrice> {
  const problems: PriceProblem[] = [];
  const out = new Map<string, ModelPrice>();
  for (const [name, entry] of Object.entries(entries))
    out.set(name, compilePrice({ ...entry, date: '2026-01-01', source: 'test' } as PriceEntry, `test (${name})`, name, problems));
  if (problems.length) throw new Error(problems.map((p) => `${p.path}: ${p.message}`).join('; '));
  return out;
}

/** Metering inputs for tests: the gateway identity as key, `prices`, and budgets per key id or team. */
export function testInputs(prices: Map<string, ModelPrice>, ledger: BudgetLedger, budgets: (key: GatewayKey) => ApplicableBudget[]): MeteringInputs {
  return {
    keyOf(ctx) {
      const id = ctx.identity;
      if (!id || id.kind !== 'api-key') return undefined;
      const key: GatewayKey = { id: id.id, user: id.user ?? id.id };
      if (id.team) key.team = id.team;
      return key;
    },
    priceOf: (_ctx, provider, model) => prices.get(`${provider}/${model}`),
    priceUnder: (_entry, provider, model) => prices.get(`${provider}/${model}`),
    budgetsFor: (_ctx, key) => budgets(key),
    budgetLedger: ledger,
  };
}

/** The built-in capabilities with `inputs` provided before metering sets up. */
export function capabilitiesWith(inputs: () => MeteringInputs): Capability[] {
  const provide: Capability = {
    name: 'test-metering-inputs',
    setup(services) {
      services.provide(METERING_INPUTS, inputs());
    },
  };
  const at = CAPABILITIES.findIndex((c) => c.name === 'metering');
  return [...CAPABILITIES.slice(0, at), provide, ...CAPABILITIES.slice(at)];
}
