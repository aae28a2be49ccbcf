import type { AuthTokenCreateRequest } from '../../generated/requests/auth-tokens-create.js';
import type { TokenOperationsStageConfig } from '../../generated/stages/token-operations.js';
import { firstProblem, schemaDocument, validatorFor } from '../../kernel/config/schema-validator.js';
import type { GatewayContext } from '../../kernel/engine/context.js';
import { BODY, readRequestBytes } from '../../kernel/engine/request-body.js';
import { defineStage } from '../../kernel/engine/stage.js';
import { badRequest, notFound, semanticError } from '../../contract/errors/gateway-error.js';
import type { GatewayRouteSpec } from '../../contract/routes.js';
import { ADMIN, TOKEN_SERVICE } from './auth-services.js';
import { MAX_GRACE_PERIOD_S, tokenLifetime } from './token-service.js';
import { IDENTITY, RESPONSE } from '../../kernel/engine/context.js';

type AdminContext = GatewayContext<GatewayRouteSpec>;

async function jsonBody(ctx: AdminContext, limit: number): Promise<unknown> {
  const raw = await readRequestBytes(ctx.req, limit).catch((err: Error & { status?: number }) => {
    throw err.status === 400 && /larger than/.test(err.message) ? badRequest('The request body is too large.', 'body') : err;
  });
  if (raw.length === 0) return {};
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch (err) {
    throw badRequest(`The request body is not valid JSON: ${(err as Error).message}`, 'body');
  }
}

/**
 * The token operations (contract section 6): POST /v1/auth/tokens issues a token (201, the value
 * shown only here and on rotate), GET lists every token without values, DELETE
 * /v1/auth/tokens/{id} revokes, POST /v1/auth/tokens/{id}/rotate issues a new value and ends the
 * old one (at once, or after the body's `gracePeriod`), POST .../block and .../unblock stop and
 * restart a key without revoking it. Needs the admin credential from the authenticate stage before it; each operation is
 * audited in the log.
 */
export default defineStage<TokenOperationsStageConfig, AdminContext>({
  name: 'token-operations',
  description: 'Issues, lists, revokes and rotates gateway tokens (the admin API).',
  schema: schemaDocument('stages/token-operations.schema.json'),
  requires: [ADMIN],
  once: true,
  reads: [BODY, IDENTITY],
  writes: [RESPONSE],
  terminal: true,
  create(config, services) {
    const tokens = services.require(TOKEN_SERVICE);
    const logger = services.logger;
    const validate = validatorFor('requests/auth-tokens-create.schema.json');
    const validateRotate = validatorFor('requests/auth-tokens-rotate.schema.json');
    const limit = config.bodyLimit ?? 65_536;
    const json = (ctx: AdminContext, status: number, body: unknown) => {
      ctx.response = { kind: 'json', status, body };
    };
    return async (ctx) => {
      switch (ctx.endpoint.operation) {
        case 'auth.tokens.create': {
          // A stage before may have read (and checked) the body already: token-governance does for a team_admin.
          const body = ctx.has(BODY) ? ctx.get(BODY) : await jsonBody(ctx, limit);
          if (body === null || typeof body !== 'object' || Array.isArray(body)) throw badRequest('The request body must be a JSON object.', 'body');
          if (!validate(body)) {
            const problem = firstProblem(validate.errors);
            throw badRequest(`${problem?.key || 'body'}: ${problem?.message ?? 'is invalid'}`, problem?.key || 'body');
          }
          const created = await tokens.create(body as AuthTokenCreateRequest);
          logger.info({ audit: 'token.create', requestId: ctx.id, tokenId: created.id, user: created.user, team: created.team }, 'token issued');
          return json(ctx, 201, created);
        }
        case 'auth.tokens.list':
          return json(ctx, 200, { object: 'list', data: await tokens.list(), has_more: false });
        case 'auth.tokens.revoke': {
          const id = ctx.params.id!;
          const revoked = await tokens.revoke(id);
          if (!revoked) throw notFound(`No token with id ${id}.`, 'id');
          logger.info({ audit: 'token.revoke', requestId: ctx.id, tokenId: id }, 'token revoked');
          return json(ctx, 200, revoked);
        }
        case 'auth.tokens.rotate': {
          const id = ctx.params.id!;
          const body = await jsonBody(ctx, limit);
          if (body === null || typeof body !== 'object' || Array.isArray(body)) throw badRequest('The request body must be a JSON object.', 'body');
          if (!validateRotate(body)) {
            const problem = firstProblem(validateRotate.errors);
            throw badRequest(`${problem?.key || 'body'}: ${problem?.message ?? 'is invalid'}`, problem?.key || 'body');
          }
          const grace = (body as { gracePeriod?: string }).gracePeriod;
          const graceSeconds = grace === undefined ? 0 : tokenLifetime(grace, 'gracePeriod');
          if (graceSeconds > MAX_GRACE_PERIOD_S) throw badRequest('gracePeriod must be at most 30 days (30d).', 'gracePeriod');
          const { resource, problem } = await tokens.rotate(id, graceSeconds);
          if (problem === 'unknown') throw notFound(`No token with id ${id}.`, 'id');
          if (problem) throw semanticError(`Token ${id} is ${problem} and cannot be rotated; issue a new one.`, 'id');
          logger.info({ audit: 'token.rotate', requestId: ctx.id, tokenId: id, graceSeconds }, 'token rotated');
          return json(ctx, 200, resource);
        }
        case 'auth.tokens.block':
        case 'auth.tokens.unblock': {
          const id = ctx.params.id!;
          const block = ctx.endpoint.operation === 'auth.tokens.block';
          const changed = await tokens.setBlocked(id, block);
          if (!changed) throw notFound(`No token with id ${id}.`, 'id');
          logger.info({ audit: block ? 'token.block' : 'token.unblock', requestId: ctx.id, tokenId: id }, block ? 'token blocked' : 'token unblocked');
          return json(ctx, 200, changed);
        }
        default:
          throw notFound(`The token operations do not serve ${ctx.method} ${ctx.path}.`);
      }
    };
  },
});
