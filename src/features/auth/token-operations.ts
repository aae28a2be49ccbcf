import type { AuthTokenCreateRequest } from '../../generated/requests/auth-tokens-create.js';
import type { AuthTokenUpdateRequest } from '../../generated/requests/auth-tokens-update.js';
import type { TokenOperationsStageConfig } from '../../generated/stages/token-operations.js';
import { firstProblem, schemaDocument, validatorFor } from '../../kernel/config/schema-validator.js';
import type { GatewayContext } from '../../kernel/engine/context.js';
import { BODY, readRequestBytes } from '../../kernel/engine/request-body.js';
import { defineStage } from '../../kernel/engine/stage.js';
import { badRequest, conflict, notFound, semanticError } from '../../contract/errors/gateway-error.js';
import type { GatewayRouteSpec } from '../../contract/routes.js';
import { ADMIN, CONFIG_KEYS, TOKEN_LIST_SCOPE, TOKEN_SERVICE } from './auth-services.js';
import { MAX_GRACE_PERIOD_S, tokenLifetime } from './token-service.js';
import type { TokenPageQuery } from './token-store.js';
import { IDENTITY, RESPONSE } from '../../kernel/engine/context.js';

type AdminContext = GatewayContext<GatewayRouteSpec>;

/** An id from the request path as a message shows it: at most 64 characters (a path may carry thousands). */
const shown = (id: string) => (id.length > 64 ? `${id.slice(0, 64)}…` : id);

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

/** The fields of a key PATCH /v1/auth/tokens/{id} changes. */
export const EDITABLE_TOKEN_FIELDS = ['name', 'models', 'limits', 'budgets', 'metadata', 'expires_at'] as const;
const EDITABLE = new Set<string>(EDITABLE_TOKEN_FIELDS);

/** Why a field of a key cannot be edited, for the fields a key has that an edit may not change. */
const FIXED_FIELDS: Record<string, string> = {
  token: 'the value of a key cannot be set; rotate the key (POST /v1/auth/tokens/{id}/rotate) for a new one',
  user: 'the user of a key cannot be changed; issue a new key for the other user',
  team: 'the team of a key cannot be changed; issue a new key in the other team',
  organization: 'the organization of a key cannot be changed; issue a new key',
  scopes: 'the scopes of a key cannot be changed; issue a new key with the scopes it needs',
  roles: 'the roles of a key cannot be changed; issue a new key with the roles it needs',
  email: 'the email of a key cannot be changed; issue a new key',
  permissions: 'the tool-server permissions of a key cannot be changed; issue a new key',
  mcp: 'the tool-server permissions of a key cannot be changed; issue a new key',
  blocked: 'use POST /v1/auth/tokens/{id}/block or .../unblock',
  expiresIn: 'give expires_at (Unix seconds) instead',
};

/** The checked body of a key edit: a 400 naming the first field that cannot be edited, or is invalid. */
function updateRequest(body: unknown, validate: ReturnType<typeof validatorFor>): AuthTokenUpdateRequest {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw badRequest('The request body must be a JSON object.', 'body');
  for (const field of Object.keys(body)) {
    if (EDITABLE.has(field)) continue;
    const name = field.slice(0, 64);
    const why = Object.hasOwn(FIXED_FIELDS, field) ? FIXED_FIELDS[field] : 'it is not a field of a key that can be edited';
    throw badRequest(`${name} cannot be edited: ${why}. Editable: ${EDITABLE_TOKEN_FIELDS.join(', ')}.`, name);
  }
  if (Object.keys(body).length === 0) throw badRequest(`The body changes nothing: give at least one of ${EDITABLE_TOKEN_FIELDS.join(', ')}.`, 'body');
  if (!validate(body)) {
    const problem = firstProblem(validate.errors);
    throw badRequest(`${problem?.key || 'body'}: ${problem?.message ?? 'is invalid'}`, problem?.key || 'body');
  }
  return body as AuthTokenUpdateRequest;
}

const LIST_PARAMS = new Set(['limit', 'after', 'order', 'search']);

/**
 * GET /v1/auth/tokens as a list query: the keys of the config file first (in their order in
 * auth.apiKeys, whatever `order`), then the issued keys newest first (order=asc: oldest first; then by id), `search` (a case-insensitive part of
 * the id, user, name, email, team or organization), and pages of `limit` (1 to 100) from the one
 * after `after` (an id of either kind). Without limit and after, the whole list (as before pages existed).
 */
export function tokenPageQuery(query: URLSearchParams, team?: string): TokenPageQuery {
  for (const name of query.keys()) if (!LIST_PARAMS.has(name)) throw badRequest(`Unknown query parameter ${name.slice(0, 64)}.`, name.slice(0, 64));
  const order = query.get('order') ?? 'desc';
  if (order !== 'asc' && order !== 'desc') throw badRequest('order must be asc or desc.', 'order');
  const search = query.get('search')?.trim().toLowerCase();
  if (search !== undefined && search.length > 200) throw badRequest('search must be at most 200 characters.', 'search');
  const out: TokenPageQuery = { order };
  if (search) out.search = search;
  if (team !== undefined) out.team = team;
  if (!query.has('limit') && !query.has('after')) return out;
  const limitText = query.get('limit');
  if (limitText !== null && (!/^\d{1,3}$/.test(limitText) || Number(limitText) < 1 || Number(limitText) > 100))
    throw badRequest('limit must be an integer from 1 to 100.', 'limit');
  out.limit = limitText === null ? 20 : Number(limitText);
  const after = query.get('after');
  if (after) out.after = after;
  return out;
}

/**
 * The token operations (contract section 6): POST /v1/auth/tokens issues a token (201, the value
 * shown only here and on rotate), GET lists every token without values (those of the config
 * file first, `source: 'file'`; the issued ones `source: 'api'`), DELETE
 * /v1/auth/tokens/{id} revokes, POST /v1/auth/tokens/{id}/rotate issues a new value and ends the
 * old one (at once, or after the body's `gracePeriod`), POST .../block and .../unblock stop and
 * restart a key without revoking it, PATCH /v1/auth/tokens/{id} edits its name, models, limits,
 * budgets, metadata and expiry. Needs the admin credential from the authenticate stage before it; each operation is
 * audited in the log.
 */
export default defineStage<TokenOperationsStageConfig, AdminContext>({
  name: 'token-operations',
  description: 'Issues, lists, revokes and rotates gateway tokens (the admin API).',
  schema: schemaDocument('stages/token-operations.schema.json'),
  requires: [ADMIN],
  once: true,
  reads: [BODY, IDENTITY, TOKEN_LIST_SCOPE],
  writes: [RESPONSE],
  terminal: true,
  create(config, services) {
    const tokens = services.require(TOKEN_SERVICE);
    const logger = services.logger;
    const validate = validatorFor('requests/auth-tokens-create.schema.json');
    const validateRotate = validatorFor('requests/auth-tokens-rotate.schema.json');
    const validateUpdate = validatorFor('requests/auth-tokens-update.schema.json');
    const configKeys = services.get(CONFIG_KEYS);
    const limit = config.bodyLimit ?? 65_536;
    const json = (ctx: AdminContext, status: number, body: unknown) => {
      ctx.response = { kind: 'json', status, body };
    };
    /** Keys of auth.apiKeys are read from the config file: they change there (409 naming where, like every file-defined object). */
    const refuseFileKey = (id: string, verb: string) => {
      const fileKey = /^config-key-(\d{1,6})$/.exec(id);
      if (fileKey && Number(fileKey[1]) < (configKeys?.size ?? 0)) {
        throw conflict(
          `The key ${id} comes from the gateway's config file (auth.apiKeys[${fileKey[1]}]) and cannot be ${verb} through the API; change the config file instead.`,
          'id',
        );
      }
    };
    return async (ctx) => {
      if (ctx.params.id && ctx.method !== 'GET') {
        const verbs: Record<string, string> = {
          'auth.tokens.update': 'changed',
          'auth.tokens.revoke': 'revoked',
          'auth.tokens.rotate': 'rotated',
          'auth.tokens.block': 'blocked',
          'auth.tokens.unblock': 'unblocked',
        };
        const verb = verbs[ctx.endpoint.operation];
        if (verb) refuseFileKey(ctx.params.id, verb);
      }
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
        case 'auth.tokens.list': {
          const query = tokenPageQuery(ctx.query, ctx.get(TOKEN_LIST_SCOPE)?.team);
          // The keys of the config file first (source: file), then the issued ones (source: api).
          const page = await tokens.page(query, configKeys?.resources());
          if ('missingAfter' in page) throw badRequest(`after: no key with id ${query.after!.slice(0, 64)} in this list.`, 'after');
          return json(ctx, 200, { object: 'list', data: page.data, has_more: page.hasMore });
        }
        case 'auth.tokens.revoke': {
          const id = ctx.params.id!;
          const revoked = await tokens.revoke(id);
          if (!revoked) throw notFound(`No token with id ${shown(id)}.`, 'id');
          logger.info({ audit: 'token.revoke', requestId: ctx.id, tokenId: id }, 'token revoked');
          return json(ctx, 200, revoked);
        }
        case 'auth.tokens.update': {
          const id = ctx.params.id!;
          const patch = updateRequest(ctx.has(BODY) ? ctx.get(BODY) : await jsonBody(ctx, limit), validateUpdate);
          const { resource, problem } = await tokens.update(id, patch);
          if (problem === 'unknown') throw notFound(`No token with id ${shown(id)}.`, 'id');
          if (problem) throw conflict(`Token ${id} is ${problem} and cannot be changed; issue a new one.`, 'id');
          logger.info({ audit: 'token.update', requestId: ctx.id, tokenId: id, fields: Object.keys(patch) }, 'token updated');
          return json(ctx, 200, resource);
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
          if (problem === 'unknown') throw notFound(`No token with id ${shown(id)}.`, 'id');
          if (problem) throw semanticError(`Token ${id} is ${problem} and cannot be rotated; issue a new one.`, 'id');
          logger.info({ audit: 'token.rotate', requestId: ctx.id, tokenId: id, graceSeconds }, 'token rotated');
          return json(ctx, 200, resource);
        }
        case 'auth.tokens.block':
        case 'auth.tokens.unblock': {
          const id = ctx.params.id!;
          const block = ctx.endpoint.operation === 'auth.tokens.block';
          // A revoked key is over: blocking or unblocking it would change nothing but its listing (409, as an edit).
          if ((await tokens.get(id))?.revoked_at) throw conflict(`Token ${id} is revoked and cannot be ${block ? 'blocked' : 'unblocked'}; issue a new one.`, 'id');
          const changed = await tokens.setBlocked(id, block);
          if (!changed) throw notFound(`No token with id ${shown(id)}.`, 'id');
          logger.info({ audit: block ? 'token.block' : 'token.unblock', requestId: ctx.id, tokenId: id }, block ? 'token blocked' : 'token unblocked');
          return json(ctx, 200, changed);
        }
        default:
          throw notFound(`The token operations do not serve ${ctx.method} ${ctx.path}.`);
      }
    };
  },
});
