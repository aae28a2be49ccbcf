import type { ValidateFunction } from 'ajv';
import { defineStage } from '../engine/stage.js';
import { PROVIDER_ROUTES } from '../http/route-table.js';
import { firstProblem, validatorFor } from '../config/schema-validator.js';
import { badRequest } from '../errors/gateway-error.js';
import { ensureJsonBody } from '../engine/request-body.js';
import { SEMANTIC_RULES } from '../validation/semantic-rules.js';
import type { GatewayContext } from '../engine/context.js';

/** Validates request parts no schema reaches (multipart uploads); provided by the capability that owns them. */
export type BodyValidator = (ctx: GatewayContext) => Promise<void>;
const BODY_VALIDATORS = new Map<string, BodyValidator>();
export function registerBodyValidator(routeKey: string, validator: BodyValidator): void {
  BODY_VALIDATORS.set(routeKey, validator);
}

const LIST_OPERATIONS = new Set(['files.list', 'batches.list', 'fine_tuning.jobs.list', 'fine_tuning.jobs.events', 'models.list']);

function checkListQuery(query: URLSearchParams): void {
  const limit = query.get('limit');
  if (limit !== null && (!/^\d+$/.test(limit) || Number(limit) < 1 || Number(limit) > 100)) {
    throw badRequest('limit must be an integer from 1 to 100.', 'limit');
  }
  const after = query.get('after');
  if (after !== null && after.trim() === '') throw badRequest('after must be an id.', 'after');
}

/**
 * Request validation before anything goes upstream: the body against its schema in
 * schema/requests/ (compiled once, here), then the semantic rules (422), then list query
 * parameters. The first problem is answered, with its `param`.
 */
export default defineStage<Record<string, never>>({
  name: 'validate',
  description: 'Validates the request body and query against the schemas and rules.',
  schema: { type: 'object', additionalProperties: false },
  create(_config, services) {
    const validators = new Map<string, ValidateFunction>();
    for (const route of PROVIDER_ROUTES) if (route.schema && route.body === 'json') validators.set(route.key, validatorFor(route.schema));
    const limit = services.config.server?.bodyLimit ?? 10 * 1024 * 1024;
    return async (ctx, next) => {
      const route = ctx.route;
      if (route.body === 'json') {
        await ensureJsonBody(ctx, limit);
        const validate = validators.get(route.key);
        if (validate && !validate(ctx.body)) {
          const { key, message } = firstProblem(validate.errors)!;
          throw badRequest(`${key || 'body'}: ${message}`, key || 'body');
        }
        SEMANTIC_RULES[route.operation]?.(ctx.body);
      } else if (route.body === 'multipart') {
        const custom = BODY_VALIDATORS.get(route.key);
        if (custom) await custom(ctx);
      }
      if (LIST_OPERATIONS.has(route.operation)) checkListQuery(ctx.query);
      await next();
    };
  },
});
