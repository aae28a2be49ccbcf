import type { NormalizeErrorStageConfig } from '../generated/stages/normalize-error.js';
import { schemaDocument } from '../kernel/config/schema-validator.js';
import { defineStage } from '../kernel/engine/stage.js';
import { isAnswerError } from '../kernel/errors/answer-error.js';
import { GatewayError } from '../contract/errors/gateway-error.js';
import { redactObject } from '../kernel/errors/redact.js';
import { normalizeError } from '../contract/errors/normalize.js';
import { RESPONSE } from '../kernel/engine/context.js';
import { UPSTREAM } from '../kernel/engine/report.js';
import { errorShapes } from '../kernel/engine/error-shapes.js';

/** The low-level cause of a 502 the gateway made from a failed connection, if that is what it is. */
function transportCause(err: GatewayError): { code?: string; message: string } | undefined {
  if (err.code !== 'provider_error' || err.upstreamStatus !== undefined) return undefined;
  const cause = err.cause as { code?: unknown; message?: unknown } | undefined;
  if (!cause || cause instanceof GatewayError || typeof cause.message !== 'string') return undefined;
  return { code: typeof cause.code === 'string' ? cause.code : undefined, message: cause.message };
}

/**
 * Outermost stage: whatever the rest of the chain throws becomes one catalogue error on
 * `ctx.error` (a stage's rejection keeps its own status and body), which the HTTP edge writes
 * in the contract's shape, or in the shape a feature registered for its routes (error-shapes.ts:
 * the models feature gives /v1/messages Anthropic's when the request carries anthropic-version).
 * A raw failure (a timeout, a refused connection) names the upstream it concerns (UPSTREAM).
 * Unexpected errors are logged (with the request id) and answered as a 500 that reveals nothing.
 */
export default defineStage<NormalizeErrorStageConfig>({
  name: 'normalize-error',
  description: 'Turns any failure into the contract error body and status.',
  schema: schemaDocument('stages/normalize-error.schema.json'),
  once: true,
  reads: [UPSTREAM, RESPONSE],
  create(_config, services) {
    const shapes = errorShapes(services);
    return async (ctx, next) => {
      try {
        await next();
      } catch (err) {
        // An answerable error of another kind (a plugin's own) keeps its status and body.
        if (isAnswerError(err) && !(err instanceof GatewayError)) {
          ctx.error = err;
          return;
        }
        const normalized = normalizeError(err, ctx.get(UPSTREAM));
        if (normalized.code === 'internal_error') {
          const detail = err instanceof Error ? { message: err.message, stack: err.stack } : { message: String(err) };
          services.logger.error({ requestId: ctx.id, err: redactObject(detail, ctx.secrets) }, 'unexpected error');
        } else {
          // Why an upstream could not be reached (refused, reset, a TLS handshake with a plain-HTTP server).
          const cause = transportCause(normalized);
          if (cause) services.logger.warn({ requestId: ctx.id, provider: normalized.provider, cause: redactObject(cause, ctx.secrets) }, 'upstream connection failed');
        }
        ctx.error = shapes.shape(ctx, normalized);
      }
    };
  },
});
