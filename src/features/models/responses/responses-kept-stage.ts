import type { ResponsesKeptStageConfig } from '../../../generated/stages/responses-kept.js';
import { schemaDocument } from '../../../kernel/config/schema-validator.js';
import { headerValue, IDENTITY } from '../../../kernel/engine/context.js';
import { CALLER } from '../../../kernel/engine/report.js';
import { defineStage } from '../../../kernel/engine/stage.js';
import { carriesGatewayCredential, GATEWAY_SERVED, PROVIDER, PROVIDER_KEY, ROUTED_AS, type ModelContext } from '../model-request.js';
import { badRequest, notFound } from '../../../contract/errors/gateway-error.js';
import { answerKept, ownerOf } from './kept-response-answers.js';
import { RESPONSE_STORE } from './response-store.js';

/**
 * A response the gateway keeps, asked for by a caller that names no provider nor routing config
 * (a gateway key, routed by model): GET, DELETE, cancel and input_items name no model to route
 * by, so they are answered from the store before routing. An id not kept here for this caller is
 * a 404. A DELETE of a response its provider keeps too is deleted there as well: one made by
 * catalogue model goes on to routing as that model, to the target that served it (ROUTED_AS);
 * any other must name a way to reach the provider (with routing.defaultConfig it goes on to
 * routing, which then has a plan).
 */
export default defineStage<ResponsesKeptStageConfig, ModelContext>({
  name: 'responses-kept',
  description: 'Answers retrieve, delete, cancel and input_items of a kept response from the store for a caller that names no provider (routed by model), before routing.',
  schema: schemaDocument('stages/responses-kept.schema.json'),
  requires: [CALLER],
  reads: [PROVIDER, PROVIDER_KEY, IDENTITY],
  writes: [GATEWAY_SERVED, ROUTED_AS],
  create(_config, services) {
    const store = services.require(RESPONSE_STORE);
    const routable = services.config.routing?.defaultConfig !== undefined;
    return async (ctx, next) => {
      const operation = ctx.endpoint.operation;
      if (operation === 'responses.create' || !operation.startsWith('responses.')) return next();
      if (ctx.has(PROVIDER) || !carriesGatewayCredential(ctx) || headerValue(ctx.headers, 'x-gateway-config') !== undefined) return next();
      const owner = ownerOf(ctx);
      const id = ctx.params.response_id ?? '';
      const record = await store.get(owner, id);
      if (record?.native && operation === 'responses.delete' && record.routedAs) {
        ctx.set(ROUTED_AS, record.routedAs);
        return next();
      }
      if (!record || (record.native && operation === 'responses.delete')) {
        if (routable) return next();
        if (!record) throw notFound(`No response ${id}.`, 'response_id');
        throw badRequest(
          `Response ${id} is kept by ${record.provider} too: send the DELETE with a routing config that reaches ${record.provider} (x-gateway-config) so that it is deleted there as well.`,
          'x-gateway-provider',
        );
      }
      return answerKept(ctx, store, owner, record, () => Promise.resolve(false));
    };
  },
});
