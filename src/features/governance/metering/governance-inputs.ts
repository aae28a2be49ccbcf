import type { GatewayServices } from '../../../kernel/engine/services.js';
import { TARGET } from '../../models/index.js';
import { applicableBudgets } from '../budgets/applicable-budgets.js';
import { BUDGET_LEDGER, CONFIG_BUDGETS } from '../budgets/budgets-capability.js';
import { CATALOGUE, PRICE_RESOLVER } from '../governance-services.js';
import { CATALOGUE_MODEL, GATEWAY_KEY, type CatalogueChoice } from '../governance-slots.js';
import type { ApplicableBudget, GatewayKey } from '../governance-types.js';
import type { PriceTable } from '../prices/price-table.js';
import { API_BUDGETS } from '../tenants/tenant-services.js';
import { pickBudgets, type ApiBudgetIndex } from '../tenants/api-budgets.js';
import { defaultMeteringInputs, type MeteringInputs } from './metering-inputs.js';

/** Keys whose applicable budgets are kept (past it the memo starts over). */
const MEMO_KEYS = 10_000;

interface BudgetsMemo {
  /** The key's subjects when worked out (a copy: a request may name its customer on its own key object). */
  key: GatewayKey;
  entry: string | undefined;
  credentials: readonly string[] | undefined;
  answering: string | undefined;
  api: ApiBudgetIndex | undefined;
  list: readonly ApplicableBudget[];
}

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

  const credentialsOf = (choice: CatalogueChoice | undefined, answering: string | undefined): string[] => {
    const named = new Set(choice?.credentials ?? []);
    if (answering) named.add(answering);
    return [...named];
  };

  /** The budgets of a request's subjects, with the API budgets as read at one time. */
  const applicableTo = (key: GatewayKey, choice: CatalogueChoice | undefined, answering: string | undefined, api: ApiBudgetIndex | undefined): readonly ApplicableBudget[] => {
    const subjects = { key, model: choice?.entry, credentials: credentialsOf(choice, answering) };
    if (!api) return applicableBudgets(configBudgets!, subjects);
    const flat = { key: key.id, user: key.user, team: key.team, organization: key.organization, customer: key.customer, model: subjects.model };
    const credentials = subjects.credentials.length ? subjects.credentials : [undefined];
    return applicableBudgets(
      configBudgets!,
      subjects,
      credentials.flatMap((credential) => pickBudgets(api, { ...flat, credential })),
    );
  };

  // What applies to a key is the same request after request: worked out once per key and kept
  // while its subjects, its own budgets (the same array while its record is unchanged) and the
  // API budgets' reading (a new one after every read or write) are the same.
  const memos = new Map<string, BudgetsMemo>();
  const remembered = (memo: BudgetsMemo | undefined, key: GatewayKey, choice: CatalogueChoice | undefined, answering: string | undefined, api: ApiBudgetIndex | undefined) =>
    memo !== undefined &&
    memo.api === api &&
    memo.key.budgets === key.budgets &&
    memo.key.user === key.user &&
    memo.key.team === key.team &&
    memo.key.organization === key.organization &&
    memo.key.customer === key.customer &&
    memo.entry === choice?.entry &&
    memo.credentials === choice?.credentials &&
    memo.answering === answering;

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
      const choice = ctx.get(CATALOGUE_MODEL);
      const answering = ctx.get(TARGET)?.credential;
      const api = apiBudgets?.fresh();
      if (apiBudgets && !api) return apiBudgets.current().then((read) => applicableTo(key, choice, answering, read));
      const memo = memos.get(key.id);
      if (remembered(memo, key, choice, answering, api)) return memo!.list;
      const list = Object.freeze(applicableTo(key, choice, answering, api));
      if (memos.size >= MEMO_KEYS) memos.clear();
      memos.set(key.id, { key: { ...key }, entry: choice?.entry, credentials: choice?.credentials, answering, api, list });
      return list;
    },
    budgetLedger: ledger,
  };
}
