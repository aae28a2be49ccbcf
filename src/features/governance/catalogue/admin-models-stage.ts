import type { AdminModelsStageConfig } from '../../../generated/stages/admin-models.js';
import { schemaDocument } from '../../../kernel/config/schema-validator.js';
import { RESPONSE, type GatewayContext } from '../../../kernel/engine/context.js';
import { defineStage } from '../../../kernel/engine/stage.js';
import { badRequest } from '../../../contract/errors/gateway-error.js';
import type { GatewayRouteSpec } from '../../../contract/routes.js';
import { ADMIN } from '../../auth/index.js';
import { pageOf } from '../admin/admin-list.js';
import { CATALOGUE, PRICE_RESOLVER, PRICE_TABLE } from '../governance-services.js';
import { listModels } from './model-listing.js';

const PARAMS = new Set(['limit', 'after', 'search', 'unpriced']);

/**
 * GET /v1/admin/models (behind the admin credential, any admin role): every catalogue model (the
 * config file's `models`, so `source: file`; a provider glob lists the models the price table
 * knows), sorted by id, each with its provider, price (US dollars per unit) and `unpriced: true`
 * when it has none. `search` (a part of the id), `unpriced=true` (only those), `limit`, `after`.
 */
export default defineStage<AdminModelsStageConfig, GatewayContext<GatewayRouteSpec>>({
  name: 'admin-models',
  description: 'GET /v1/admin/models: the catalogue with prices, unpriced models flagged.',
  schema: schemaDocument('stages/admin-models.schema.json'),
  once: true,
  requires: [ADMIN],
  writes: [RESPONSE],
  terminal: true,
  create(_config, services) {
    const catalogue = services.require(CATALOGUE);
    const prices = services.require(PRICE_RESOLVER);
    const table = services.get(PRICE_TABLE);
    const created = Math.floor(Date.now() / 1000);
    return async (ctx) => {
      for (const name of ctx.query.keys()) if (!PARAMS.has(name)) throw badRequest(`Unknown query parameter ${name.slice(0, 64)}.`, name.slice(0, 64));
      const unpriced = ctx.query.get('unpriced');
      if (unpriced !== null && unpriced !== 'true' && unpriced !== 'false') throw badRequest('unpriced must be true or false.', 'unpriced');
      const search = ctx.query.get('search')?.trim().toLowerCase();
      if (search !== undefined && search.length > 200) throw badRequest('search must be at most 200 characters.', 'search');
      let items = listModels(catalogue, undefined, undefined, prices, table, created).map((m) => ({ ...m, object: 'admin.model', unpriced: !m.price, source: 'file' }));
      if (search) items = items.filter((m) => m.id.toLowerCase().includes(search));
      if (unpriced !== null) items = items.filter((m) => m.unpriced === (unpriced === 'true'));
      ctx.response = { kind: 'json', status: 200, body: pageOf(items, ctx.query) };
    };
  },
});
