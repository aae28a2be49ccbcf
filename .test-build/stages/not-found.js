import { schemaDocument } from '../kernel/config/schema-validator.js';
import { defineStage } from '../kernel/engine/stage.js';
import { notFound } from '../contract/errors/gateway-error.js';
/** A route the gateway does not have: 404 not_found in the contract's body. */
export default defineStage({
    name: 'not-found',
    description: 'Answers an unknown route with 404 not_found.',
    schema: schemaDocument('stages/not-found.schema.json'),
    once: true,
    create() {
        return async (ctx) => {
            throw notFound(`No route ${ctx.method} ${ctx.path}.`);
        };
    },
});
//# sourceMappingURL=not-found.js.map