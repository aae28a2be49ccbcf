import type { TokenGovernanceStageConfig } from '../../../generated/stages/token-governance.js';
import { schemaDocument } from '../../../kernel/config/schema-validator.js';
import type { GatewayContext } from '../../../kernel/engine/context.js';
import { BODY } from '../../../kernel/engine/request-body.js';
import { defineStage } from '../../../kernel/engine/stage.js';
import { forbidden } from '../../../contract/errors/gateway-error.js';
import type { GatewayRouteSpec } from '../../../contract/routes.js';
import { ADMIN, ADMIN_ACCESS, CONFIG_KEYS, TOKEN_LIST_SCOPE, TOKEN_SERVICE, type TokenResource } from '../../auth/index.js';
import { AUDIT } from '../audit/audit-services.js';
import { TENANTS } from '../tenants/tenant-services.js';
import { jsonObjectBody } from './admin-body.js';
import { TeamScope } from './team-scope.js';
import { refuseUnknownTimeZone } from '../budgets/local-time.js';
import { IDENTITY, RESPONSE, type Identity } from '../../../kernel/engine/context.js';

type AdminContext = GatewayContext<GatewayRouteSpec>;

/** A C0 control character or DEL (no tenant id holds one). */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\x00-\x1f\x7f]/;

/**
 * Wraps the token operations (the stage after it): the caller's admin role applied before them
 * (viewer: reads only; team_admin: its own team's keys, listed, issued and changed), and every
 * successful write (create, update, revoke, rotate, and any other POST, PATCH or DELETE) audited after them, as
 * the token was before and after, never with its value.
 */
export default defineStage<TokenGovernanceStageConfig, AdminContext>({
  name: 'token-governance',
  description: 'Applies admin roles to the token operations and audits their writes.',
  schema: schemaDocument('stages/token-governance.schema.json'),
  requires: [ADMIN, ADMIN_ACCESS],
  once: true,
  reads: [BODY, IDENTITY, RESPONSE],
  writes: [BODY, TOKEN_LIST_SCOPE],
  create(config, services) {
    const tokens = services.require(TOKEN_SERVICE);
    const audit = services.require(AUDIT);
    const tenants = services.require(TENANTS);
    const scope = new TeamScope(tenants, tokens);
    const configKeys = services.get(CONFIG_KEYS);
    const limit = config.bodyLimit ?? 65_536;
    /** The caller's credential as it is now (a session carries only its kind and id): what it may pass on to the keys it issues. */
    const granterOf = async (identity: Identity | null | undefined): Promise<Identity | undefined> => {
      if (!identity) return undefined;
      if (identity.kind === 'token') return (await tokens.currentIdentity(identity.id)) ?? identity;
      if (identity.kind === 'api-key') return configKeys?.identityById(identity.id) ?? identity;
      return identity;
    };
    return async (ctx, next) => {
      const access = ctx.get(ADMIN_ACCESS)!;
      const operation = ctx.endpoint.operation;
      const write = ctx.method !== 'GET' && ctx.method !== 'HEAD';
      if (write) scope.refuseViewerWrite(access);
      const id = ctx.params.id;
      const before = id ? await tokens.get(id) : undefined;
      if (access.role === 'team_admin') {
        const team = scope.teamOf(access);
        if (id && before && !scope.tokenInTeam(team, before)) throw forbidden(`A team_admin manages only its own team's (${team}) keys.`);
        // A key of the config file (auth.apiKeys) of another team is none of its business either (its own team's: the file's 409).
        const fileKey = id && !before ? configKeys?.identityById(id) : undefined;
        if (fileKey && fileKey.team !== team) throw forbidden(`A team_admin manages only its own team's (${team}) keys.`);
        if (operation === 'auth.tokens.list') ctx.set(TOKEN_LIST_SCOPE, { team });
        if (operation === 'auth.tokens.create') {
          const body = await jsonObjectBody(ctx, limit);
          await scope.checkNewKey(access, body, await granterOf(ctx.identity));
          ctx.set(BODY, body);
        }
      }
      // A key's own budgets: a window in a time zone the gateway knows (else no request under it could be served).
      if (operation === 'auth.tokens.create' || operation === 'auth.tokens.update') {
        const body = ctx.has(BODY) ? (ctx.get(BODY) as Record<string, unknown>) : await jsonObjectBody(ctx, limit);
        if (Array.isArray(body.budgets)) body.budgets.forEach((budget, i) => refuseUnknownTimeZone(budget, `budgets[${i}].window.timezone`));
        // A team_admin's edit keeps the key within the models its team may use.
        if (operation === 'auth.tokens.update' && access.role === 'team_admin') await scope.checkKeyModels(access, body.models);
        ctx.set(BODY, body);
      }
      // A key of a team belongs to the team's organisation (its budgets, its ledger rows) unless it names one.
      if (operation === 'auth.tokens.create') {
        const body = ctx.get(BODY) as Record<string, unknown>;
        // (a team name no store can hold is the token operations' 400 to give, naming `team`)
        if (typeof body.team === 'string' && !CONTROL.test(body.team) && body.organization === undefined) {
          const team = await tenants.get('team', body.team);
          if (typeof team?.organization === 'string') body.organization = team.organization;
        }
        ctx.set(BODY, body);
      }
      await next();
      const answer = ctx.response;
      if (answer?.kind !== 'json' || answer.status >= 300) return;
      // A team_admin's list was narrowed to its team by the store's query (TOKEN_LIST_SCOPE).
      if (!write) return;
      const after = answer.body as TokenResource | undefined;
      const action = operation.startsWith('auth.tokens.') ? operation.slice('auth.tokens.'.length) : operation;
      await audit.recordAudit(ctx, { action: `token.${action}`, resource: 'token', id: id ?? after?.id ?? 'unknown', before, after });
    };
  },
});
