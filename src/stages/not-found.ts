import type { NotFoundStageConfig } from '../generated/stages/not-found.js';
import { schemaDocument } from '../kernel/config/schema-validator.js';
import { defineStage } from '../kernel/engine/stage.js';
import { notFound } from '../contract/errors/gateway-error.js';
import { RESPONSE } from '../kernel/engine/context.js';

/** A route the gateway does not have: 404 not_found in the contract's body. */
export default defineStage<NotFoundStageConfig>({
  name: 'not-found',
  description: 'Answers an unknown route with 404 not_found.',
  schema: schemaDocument('stages/not-found.schema.json'),
  once: true,
  writes: [RESPONSE],
  terminal: true,
  create() {
    return async (ctx) => {
      throw notFound(`No route ${ctx.method} ${ctx.path}.`);
    };
  },
});
