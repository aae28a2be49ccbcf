import express, { type Express, type Request } from 'express';
import type { GatewayConfig } from '../generated/gateway.js';
import type { AuthTokenCreateRequest } from '../generated/requests/auth-tokens-create.js';
import { firstProblem, validatorFor } from '../config/schema-validator.js';
import { badRequest, forbidden, notFound, semanticError } from '../errors/gateway-error.js';
import type { Logger } from '../observability/logger.js';
import { unauthenticated } from './challenge.js';
import { publicBaseUrl } from './public-url.js';
import { bearerValue, secretsEqual } from './secrets.js';
import type { TokenService } from './token-service.js';
import { insecureTransportError } from './transport-security.js';

/**
 * Checks the admin bearer token of a token operation. With no admin token configured the
 * operations are disabled: every request gets 403. Otherwise a missing or wrong token is 401.
 */
export function checkAdmin(req: Request, config: GatewayConfig): void {
  const adminToken = config.auth?.adminToken;
  if (!adminToken) {
    throw forbidden('The token operations are disabled: no admin token is configured (auth.adminToken or GATEWAY_ADMIN_TOKEN).');
  }
  const given = bearerValue(req.headers.authorization);
  if (!given) throw unauthenticated('The token operations need Authorization: Bearer <admin token>.', publicBaseUrl(req, config));
  const insecure = insecureTransportError(req, config);
  if (insecure) throw insecure;
  if (!secretsEqual(given, adminToken)) throw unauthenticated('The admin token is not valid.', publicBaseUrl(req, config));
}

/** POST/GET /v1/auth/tokens, DELETE /v1/auth/tokens/{id}, POST /v1/auth/tokens/{id}/rotate. */
export function mountTokenRoutes(app: Express, config: GatewayConfig, tokens: TokenService, logger: Logger): void {
  const validate = validatorFor('requests/auth-tokens-create.schema.json');
  const json = express.json({ limit: '64kb', type: () => true });

  app.post('/v1/auth/tokens', (req, _res, next) => {
    try {
      checkAdmin(req, config);
      next();
    } catch (err) {
      next(err);
    }
  });
  app.post('/v1/auth/tokens', json, async (req, res) => {
    const body: unknown = req.body ?? {};
    if (body === null || typeof body !== 'object' || Array.isArray(body)) throw badRequest('The request body must be a JSON object.', 'body');
    if (!validate(body)) {
      const problem = firstProblem(validate.errors);
      throw badRequest(`${problem?.key || 'body'}: ${problem?.message ?? 'is invalid'}`, problem?.key || 'body');
    }
    const created = await tokens.create(body as AuthTokenCreateRequest);
    logger.info({ audit: 'token.create', tokenId: created.id, user: created.user, team: created.team }, 'token issued');
    res.status(201).json(created);
  });

  app.get('/v1/auth/tokens', async (req, res) => {
    checkAdmin(req, config);
    res.status(200).json({ object: 'list', data: await tokens.list(), has_more: false });
  });

  app.delete('/v1/auth/tokens/:id', async (req, res) => {
    checkAdmin(req, config);
    const id = String(req.params.id);
    const revoked = await tokens.revoke(id);
    if (!revoked) throw notFound(`No token with id ${id}.`, 'id');
    logger.info({ audit: 'token.revoke', tokenId: id }, 'token revoked');
    res.status(200).json(revoked);
  });

  app.post('/v1/auth/tokens/:id/rotate', async (req, res) => {
    checkAdmin(req, config);
    const id = String(req.params.id);
    const { resource, problem } = await tokens.rotate(id);
    if (problem === 'unknown') throw notFound(`No token with id ${id}.`, 'id');
    if (problem) throw semanticError(`Token ${id} is ${problem} and cannot be rotated; issue a new one.`, 'id');
    logger.info({ audit: 'token.rotate', tokenId: id }, 'token rotated');
    res.status(200).json(resource);
  });
}
