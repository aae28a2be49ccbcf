import { defineStage } from '../engine/stage.js';
import { normalizeError } from '../errors/normalize.js';
import { redactObject } from '../errors/redact.js';

/**
 * Outermost stage: whatever the rest of the chain throws becomes one catalogue error on
 * `ctx.error`, which the HTTP edge writes in the contract's shape. Unexpected errors are
 * logged (with the request id) and answered as a 500 that reveals nothing.
 */
export default defineStage<Record<string, never>>({
  name: 'normalize-error',
  description: 'Turns any failure into the contract error body and status.',
  schema: { type: 'object', additionalProperties: false },
  create(_config, services) {
    return async (ctx, next) => {
      try {
        await next();
      } catch (err) {
        const normalized = normalizeError(err, ctx.target?.provider);
        if (normalized.code === 'internal_error') {
          const detail = err instanceof Error ? { message: err.message, stack: err.stack } : { message: String(err) };
          services.logger.error({ requestId: ctx.id, err: redactObject(detail, ctx.secrets) }, 'unexpected error');
        }
        ctx.error = normalized;
      }
    };
  },
});
