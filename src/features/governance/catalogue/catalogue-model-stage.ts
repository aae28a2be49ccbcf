import type { CatalogueModelStageConfig } from '../../../generated/stages/catalogue-model.js';
import { schemaDocument } from '../../../kernel/config/schema-validator.js';
import { IDENTITY, RESPONSE, type GatewayContext } from '../../../kernel/engine/context.js';
import { CALLER } from '../../../kernel/engine/report.js';
import { defineStage } from '../../../kernel/engine/stage.js';
import { modelNotFound } from '../../../contract/errors/gateway-error.js';
import type { GatewayRouteSpec } from '../../../contract/routes.js';
import { CONFIG_KEYS, TOKEN_SERVICE, requireGatewayKey } from '../../auth/index.js';
import { GATEWAY_KEY } from '../governance-slots.js';
import { CATALOGUE, PRICE_RESOLVER, PRICE_TABLE } from '../governance-services.js';
import { API_TEAMS } from '../tenants/tenant-services.js';
import { listModels, teamModels, teamModelsReady } from './model-listing.js';

/**
 * GET /v1/models/{model} (the SDKs' models.retrieve) with a gateway key: the catalogue model of
 * that name as GET /v1/models lists it for the key (context_window, price), or the catalogue's
 * 404 model_not_found, the same answer for a model the key may not use and one that does not
 * exist (contract section 8). A name routed by a provider glob ("openai/*") is found when the
 * price table knows the model, as the list shows it.
 */
export default defineStage<CatalogueModelStageConfig, GatewayContext<GatewayRouteSpec>>({
  name: 'catalogue-model',
  description: 'Answers one catalogue model a gateway key may use (GET /v1/models/{model}), else the catalogue 404.',
  schema: schemaDocument('stages/catalogue-model.schema.json'),
  once: true,
  writes: [CALLER, IDENTITY, GATEWAY_KEY, RESPONSE],
  terminal: true,
  create(_config, services) {
    const catalogue = services.require(CATALOGUE);
    const prices = services.require(PRICE_RESOLVER);
    const table = services.get(PRICE_TABLE);
    const tokens = services.require(TOKEN_SERVICE);
    const keys = services.get(CONFIG_KEYS);
    const apiTeams = services.get(API_TEAMS);
    const created = Math.floor(Date.now() / 1000);
    return async (ctx) => {
      const key = await requireGatewayKey(ctx, services.config, tokens, keys);
      ctx.set(CALLER, true);
      await teamModelsReady(services.config, key, apiTeams);
      const name = ctx.params.model ?? '';
      const item = listModels(catalogue, key, teamModels(services.config, key, apiTeams), prices, table, created).find((m) => m.id === name);
      if (!item) throw modelNotFound(name);
      ctx.response = { kind: 'json', status: 200, body: item };
    };
  },
});
