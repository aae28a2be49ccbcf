import type { GatewayContext } from '../../../kernel/engine/context.js';
import { defineService } from '../../../kernel/engine/services.js';
import type { ModelPrice } from '../prices/cost.js';
import type { PriceTable } from '../prices/price-table.js';
import type { ApplicableBudget, BudgetLedger, GatewayKey } from '../governance-types.js';

/**
 * What metering needs from the other parts of governance, in one place: the request's gateway
 * key, a model's price, the budgets that apply and the ledger that holds their spend. The
 * defaults below use what the gateway has without those parts (the caller's gateway identity,
 * the shipped price table, no budgets); the catalogue, budgets and tenants parts provide their
 * own by replacing METERING_INPUTS before the pipelines compile.
 */
export interface MeteringInputs {
  /** The gateway key the request was made with (undefined: not metered). */
  keyOf(ctx: GatewayContext): GatewayKey | undefined;
  /** The price of `model` at `provider` (the catalogue's override first, then the price table). */
  priceOf(ctx: GatewayContext, provider: string, model: string): ModelPrice | undefined;
  /** The same outside a request: the price under catalogue model `entry` (undefined: none named). */
  priceUnder(entry: string | undefined, provider: string, model: string): ModelPrice | undefined;
  /** The catalogue model the request named (undefined: none). */
  catalogueEntryOf?(ctx: GatewayContext): string | undefined;
  /** The catalogue model's max_output_tokens, when the request names one. */
  maxOutputTokensOf?(ctx: GatewayContext, provider: string, model: string): number | undefined;
  /** Every budget that applies to the request (budgets made through the admin API are read from the store, hence a promise). */
  budgetsFor(ctx: GatewayContext, key: GatewayKey): readonly ApplicableBudget[] | Promise<readonly ApplicableBudget[]>;
  /** Where budgets' spend is kept (undefined: no budget is enforced). */
  budgetLedger?: BudgetLedger;
  /** The label a model's spend is counted under (a name the gateway knows, else other). */
  modelLabel?(provider: string, model: string): string;
}

export const METERING_INPUTS = defineService<MeteringInputs>('metering-inputs');

/** Gateway identities that stand for a key (not the admin token, not an anonymous /mcp caller). */
const KEY_KINDS = new Set(['token', 'api-key', 'oauth', 'mtls']);

/** The defaults: the caller's gateway credential as its key, the shipped price table, no budgets. */
export function defaultMeteringInputs(prices: PriceTable): MeteringInputs {
  return {
    keyOf(ctx) {
      const identity = ctx.identity;
      if (!identity || !KEY_KINDS.has(identity.kind)) return undefined;
      const key: GatewayKey = { id: identity.id, user: identity.user ?? identity.id };
      if (identity.team) key.team = identity.team;
      if (identity.organization) key.organization = identity.organization;
      if (identity.roles) key.roles = identity.roles;
      return key;
    },
    priceOf: (_ctx, provider, model) => prices.lookup(provider, model),
    priceUnder: (_entry, provider, model) => prices.lookup(provider, model),
    budgetsFor: () => [],
  };
}
