import type { CatalogueModelsStageConfig } from '../../../generated/stages/catalogue-models.js';
import { schemaDocument } from '../../../kernel/config/schema-validator.js';
import { headerValue, RESPONSE } from '../../../kernel/engine/context.js';
import { defineStage } from '../../../kernel/engine/stage.js';
import { badRequest } from '../../../contract/errors/gateway-error.js';
import type { ModelContext } from '../../models/index.js';
import { GATEWAY_KEY } from '../governance-slots.js';
import { CATALOGUE, PRICE_RESOLVER, PRICE_TABLE } from '../governance-services.js';
import { listModels, teamModels, teamModelsReady } from './model-listing.js';
import { API_TEAMS } from '../tenants/tenant-services.js';

/**
 * GET /v1/models with a gateway key and neither x-gateway-provider nor x-gateway-config: the
 * catalogue models that key may use (its `models`, and its team's), in the list shape of
 * contract section 2 (`limit` 1 to 100, default 20; `after` an id), sorted by id, each with
 * `context_window` and `price` (US dollars per unit as decimal strings). Other requests go on
 * to the provider's own list.
 */
export default defineStage<CatalogueModelsStageConfig, ModelContext>({
  name: 'catalogue-models',
  description: 'Lists the catalogue models a gateway key may use (GET /v1/models without x-gateway-provider).',
  schema: schemaDocument('stages/catalogue-models.schema.json'),
  once: true,
  reads: [GATEWAY_KEY],
  writes: [RESPONSE],
  create(_config, services) {
    const catalogue = services.require(CATALOGUE);
    const prices = services.require(PRICE_RESOLVER);
    const table = services.get(PRICE_TABLE);
    const created = Math.floor(Date.now() / 1000);
    const apiTeams = services.get(API_TEAMS);
    return async (ctx, next) => {
      const key = ctx.get(GATEWAY_KEY);
      if (!key || headerValue(ctx.headers, 'x-gateway-provider') || headerValue(ctx.headers, 'x-gateway-config')) return next();
      await teamModelsReady(services.config, key, apiTeams);
      const limitText = ctx.query.get('limit');
      const limit = limitText === null ? 20 : Number(limitText);
      if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw badRequest('limit must be an integer from 1 to 100.', 'limit');
      let items = listModels(catalogue, key, teamModels(services.config, key, apiTeams), prices, table, created);
      const after = ctx.query.get('after');
      if (after !== null) items = items.filter((m) => m.id > after);
      ctx.response = { kind: 'json', status: 200, body: { object: 'list', data: items.slice(0, limit), has_more: items.length > limit } };
    };
  },
});
