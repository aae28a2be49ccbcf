import type { GatewayContext } from '../../../kernel/engine/context.js';
import type { GatewayServices } from '../../../kernel/engine/services.js';
import { TARGET } from '../../models/index.js';
import { applicableBudgets } from '../budgets/applicable-budgets.js';
import { BUDGET_LEDGER, CONFIG_BUDGETS } from '../budgets/budgets-capability.js';
import { CATALOGUE, PRICE_RESOLVER } from '../governance-services.js';
import { CATALOGUE_MODEL, GATEWAY_KEY } from '../governance-slots.js';
import type { ApplicableBudget, GatewayKey } from '../governance-types.js';
import type { PriceTable } from '../prices/price-table.js';
import { API_BUDGETS } from '../tenants/tenant-services.js';
import { defaultMeteringInputs, type MeteringInputs } from './metering-inputs.js';

/**
 * Metering's inputs from the other parts of governance, where they are set up: the key the
 * request presented (GATEWAY_KEY, else the caller's gateway identity), the catalogue model's own
 * price and max_output_tokens before the shipped table's, and every budget that applies (the
 * config's, the key's own, those made through /v1/admin/budgets) on the budget ledger.
 */
export function governanceMeteringInputs(services: GatewayServices, prices: PriceTable): MeteringInputs {
  const fallback = defaultMeteringInputs(prices);
  const resolver = services.get(PRICE_RESOLVER);
  const catalogue = services.get(CATALOGUE);
  const configBudgets = services.get(CONFIG_BUDGETS);
  const apiBudgets = services.get(API_BUDGETS);
  const ledger = services.get(BUDGET_LEDGER);
  const maxOutput = new Map<string, number>();
  for (const entry of catalogue?.entries() ?? []) if (entry.maxOutputTokens !== undefined) maxOutput.set(entry.name, entry.maxOutputTokens);

  const credentialsOf = (ctx: GatewayContext): string[] => {
    const named = new Set(ctx.get(CATALOGUE_MODEL)?.credentials ?? []);
    const answering = ctx.get(TARGET)?.credential;
    if (answering) named.add(answering);
    return [...named];
  };

  return {
    keyOf: (ctx) => ctx.get(GATEWAY_KEY) ?? fallback.keyOf(ctx),
    priceOf: (ctx, provider, model) => (resolver ? resolver.priceOf(ctx.get(CATALOGUE_MODEL)?.entry, provider, model) : prices.lookup(provider, model)),
    priceUnder: (entry, provider, model) => (resolver ? resolver.priceOf(entry, provider, model) : prices.lookup(provider, model)),
    catalogueEntryOf: (ctx) => ctx.get(CATALOGUE_MODEL)?.entry,
    maxOutputTokensOf: (ctx) => {
      const entry = ctx.get(CATALOGUE_MODEL)?.entry;
      return entry === undefined ? undefined : maxOutput.get(entry);
    },
    budgetsFor(ctx, key: GatewayKey): readonly ApplicableBudget[] | Promise<readonly ApplicableBudget[]> {
      if (!configBudgets) return [];
      const subjects = { key, model: ctx.get(CATALOGUE_MODEL)?.entry, credentials: credentialsOf(ctx) };
      if (!apiBudgets) return applicableBudgets(configBudgets, subjects);
      const flat = { key: key.id, user: key.user, team: key.team, organization: key.organization, customer: key.customer, model: subjects.model };
      const credentials = subjects.credentials.length ? subjects.credentials : [undefined];
      return Promise.all(credentials.map((credential) => apiBudgets.applicable({ ...flat, credential }))).then((lists) => applicableBudgets(configBudgets, subjects, lists.flat()));
    },
    budgetLedger: ledger,
  };
}
