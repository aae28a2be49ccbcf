import type { GatewayConfig } from '../../../generated/gateway.js';
import type { GatewayKey } from '../governance-types.js';
import type { PriceResolver } from '../prices/price-resolver.js';
import { priceView } from '../prices/price-resolver.js';
import type { PriceTable } from '../prices/price-table.js';
import type { Catalogue } from './catalogue.js';
import { keyMayUseModel } from '../model-access.js';
import type { StoreReading } from '../tenants/store-reading.js';
import type { ApiTeamModels } from '../tenants/api-teams.js';

/** One model of GET /v1/models with a gateway key. */
export interface CatalogueModelItem {
  id: string;
  object: 'model';
  created: number;
  owned_by: string;
  context_window?: number;
  max_output_tokens?: number;
  /** US dollars per unit as decimal strings, and the price's source; absent when the model has no price. */
  price?: Record<string, string>;
}

/** Nothing: what a key of a team the admin API may hold gets while the API's teams are unread. */
const NO_MODELS: readonly string[] = Object.freeze([]);

/**
 * The catalogue models a team's keys may use at most (undefined: no bound): the config file's
 * `tenants.teams.<team>.models`, else the `models` of the team made through /v1/admin/teams, as
 * `apiTeams` last read them (`teamModelsReady` reads them first). While the API's teams are
 * unread, a team the file does not name is bounded to nothing: a bound is never lost.
 */
export function teamModels(config: GatewayConfig, key: GatewayKey | undefined, apiTeams?: StoreReading<ApiTeamModels>): readonly string[] | undefined {
  if (!key?.team) return undefined;
  const file = config.tenants?.teams?.[key.team];
  if (file) return file.models;
  if (!apiTeams) return undefined;
  const reading = apiTeams.fresh() ?? apiTeams.last();
  return reading ? reading.get(key.team) : NO_MODELS;
}

/** A promise to wait on before `teamModels` answers for `key` (its team is not the file's, and the API's teams are due a read); else undefined. */
export function teamModelsReady(config: GatewayConfig, key: GatewayKey | undefined, apiTeams?: StoreReading<ApiTeamModels>): Promise<unknown> | undefined {
  if (!key?.team || !apiTeams || config.tenants?.teams?.[key.team] || apiTeams.fresh() !== undefined) return undefined;
  return apiTeams.current();
}

/**
 * Every catalogue model a key may use, by name: the exact entries, and for each provider glob
 * ("openai/*") the models of that provider the price table knows (a glob routes any model name,
 * but only known ones can be listed).
 */
export function listModels(
  catalogue: Catalogue,
  key: GatewayKey | undefined,
  team: readonly string[] | undefined,
  prices: PriceResolver,
  table: PriceTable | undefined,
  created: number,
): CatalogueModelItem[] {
  const items = new Map<string, CatalogueModelItem>();
  const add = (id: string, entryName: string, provider: string | undefined, model: string | undefined, contextWindow?: number, maxOutput?: number) => {
    if (items.has(id) || !keyMayUseModel(key?.models, id) || !keyMayUseModel(team, id)) return;
    const item: CatalogueModelItem = { id, object: 'model', created, owned_by: provider ?? 'gateway' };
    if (contextWindow !== undefined) item.context_window = contextWindow;
    if (maxOutput !== undefined) item.max_output_tokens = maxOutput;
    const price = provider && model ? prices.priceOf(entryName, provider, model) : undefined;
    if (price) item.price = priceView(price);
    items.set(id, item);
  };
  for (const entry of catalogue.entries()) {
    if (!entry.prefix) add(entry.name, entry.name, entry.provider, entry.model, entry.contextWindow, entry.maxOutputTokens);
  }
  for (const entry of catalogue.entries()) {
    if (!entry.prefix || !entry.provider || !table) continue;
    for (const model of table.models(entry.provider)) add(entry.prefix + model, entry.name, entry.provider, model, entry.contextWindow, entry.maxOutputTokens);
  }
  return [...items.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
