import type { AdminSessionStageConfig } from '../../generated/stages/admin-session.js';
import { schemaDocument } from '../../kernel/config/schema-validator.js';
import { RESPONSE, type GatewayContext } from '../../kernel/engine/context.js';
import { CALLER } from '../../kernel/engine/report.js';
import { readRequestBytes } from '../../kernel/engine/request-body.js';
import { defineStage } from '../../kernel/engine/stage.js';
import { badRequest, forbidden, notFound } from '../../contract/errors/gateway-error.js';
import type { GatewayRouteSpec } from '../../contract/routes.js';
import { ADMIN_ROLES, adminAccessOf, FULL_ADMIN } from './admin-roles.js';
import { checkSessionRequest, invalidSession, newOidcState, oidcCookie, openOidcLogin, sealOidcLogin, sessionCookies, sessionTtl, type AdminSession } from './admin-session.js';
import { OidcLogin } from './oauth-server/oidc-login.js';
import { ADMIN_IDENTITY, ADMIN_SESSIONS, CONFIG_KEYS, TOKEN_SERVICE, USER_ROLES } from './auth-services.js';
import { unauthenticated } from './challenge.js';
import { checkGatewayCredential } from './gateway-credentials.js';
import { publicBaseUrl } from './public-url.js';
import { secretsEqual } from './secrets.js';
import { insecureTransportError } from './transport-security.js';

type Ctx = GatewayContext<GatewayRouteSpec>;

/** What the session operations answer: the role and the CSRF token, never the credential. */
function sessionBody(session: AdminSession, readOnly: boolean) {
  return {
    object: 'admin.session',
    role: session.access.role,
    team: session.access.team ?? null,
    user: session.identity.user ?? null,
    credential: session.identity.kind === 'admin' ? 'admin_token' : 'gateway_key',
    expires_at: session.expiresAt,
    csrf_token: session.csrf,
    read_only: readOnly,
  };
}

/**
 * The admin API's cookie sessions (for browsers: the console, or any client that keeps cookies).
 * POST /v1/admin/session with {"token": "<admin token or gateway key>"}: the admin token logs in
 * as admin, a key with an admin role (on the key or its user) as that role; the answer sets an
 * HttpOnly, SameSite=Strict session cookie (Secure over TLS) that expires after ui.sessionTtl,
 * and a readable CSRF cookie whose value every write made with the session must send back in
 * x-csrf-token. GET answers the session (401 without one); DELETE logs out (CSRF token needed).
 */
export default defineStage<AdminSessionStageConfig, Ctx>({
  name: 'admin-session',
  description: 'POST/GET/DELETE /v1/admin/session: admin API sessions in an HttpOnly cookie, with a CSRF token for writes.',
  schema: schemaDocument('stages/admin-session.schema.json'),
  once: true,
  writes: [RESPONSE, CALLER],
  terminal: true,
  create(config, services) {
    const gateway = services.config;
    const tokens = services.require(TOKEN_SERVICE);
    const keys = services.get(CONFIG_KEYS);
    const userRoles = services.get(USER_ROLES);
    const sessions = services.require(ADMIN_SESSIONS);
    const limit = config.bodyLimit ?? 8192;
    const readOnly = gateway.ui?.readOnly === true;
    const adminTokenOrOff = (): string => {
      const adminToken = gateway.auth?.adminToken;
      if (!adminToken) throw forbidden('The admin API is disabled: no admin token is configured (auth.adminToken or GATEWAY_ADMIN_TOKEN).');
      return adminToken;
    };
    const current = async (ctx: Ctx, adminToken: string): Promise<AdminSession> => {
      const session = await sessions.read(ctx.req, adminToken);
      if (!session) throw invalidSession();
      return session;
    };
    const login = async (ctx: Ctx) => {
      const adminToken = adminTokenOrOff();
      const insecure = insecureTransportError(ctx.req, gateway);
      if (insecure) throw insecure;
      // JSON only: a cross-site HTML form (text/plain, urlencoded, multipart) cannot log a browser in to another's session.
      if (!/^application\/json\s*(;|$)/i.test(ctx.req.headers['content-type'] ?? '')) {
        throw badRequest('POST /v1/admin/session takes a JSON body: send content-type: application/json.', 'content-type');
      }
      const raw = await readRequestBytes(ctx.req, limit).catch(() => {
        throw badRequest(`The request body must be a JSON object of at most ${limit} bytes.`, 'body');
      });
      let body: unknown;
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        throw badRequest('The request body is not valid JSON.', 'body');
      }
      const token = (body as { token?: unknown } | null)?.token;
      if (body === null || typeof body !== 'object' || Array.isArray(body) || typeof token !== 'string' || token.length < 1 || token.length > 4096) {
        throw badRequest('token: the admin token or a gateway key with an admin role (a string of 1 to 4096 characters) is required.', 'token');
      }
      for (const name of Object.keys(body)) if (name !== 'token') throw badRequest(`Unknown field ${name.slice(0, 64)}.`, name.slice(0, 64));
      ctx.secrets.push(token);
      const base = publicBaseUrl(ctx.req, gateway);
      let made;
      if (secretsEqual(token, adminToken)) {
        made = await sessions.create(FULL_ADMIN, ADMIN_IDENTITY, gateway, adminToken);
      } else {
        const checked = await checkGatewayCredential(token, tokens, keys);
        if (!checked.ok) throw checked.blocked ? forbidden(checked.message) : unauthenticated(`The admin token or key is not valid: ${checked.message}`, base);
        const identity = checked.identity;
        const access = adminAccessOf(identity, identity.user && userRoles ? await userRoles(identity.user) : undefined, ADMIN_ROLES);
        if (!access) throw forbidden(`This key holds none of the admin roles (${ADMIN_ROLES.join(', ')}).`);
        made = await sessions.create(access, identity, gateway, adminToken);
      }
      ctx.res.setHeader('set-cookie', sessionCookies(ctx.req, made.cookie, sessionTtl(gateway), made.session.csrf));
      services.logger.info({ audit: 'admin.session.create', requestId: ctx.id, role: made.session.access.role, user: made.session.identity.user }, 'admin session opened');
      ctx.response = { kind: 'json', status: 201, headers: { 'cache-control': 'no-store' }, body: sessionBody(made.session, readOnly) };
    };
    // Console login through the OpenID provider of auth.type oauth (auth.issuer, clientId, clientSecret).
    const auth = gateway.auth;
    const oidc = auth?.type === 'oauth' && auth.issuer && auth.clientId && auth.clientSecret ? new OidcLogin(auth, services.logger) : undefined;
    const callbackUrl = (ctx: Ctx) => `${publicBaseUrl(ctx.req, gateway)}/v1/admin/session/oidc/callback`;
    const oidcStart = async (ctx: Ctx) => {
      // ?probe=1: whether the console offers the login (the login page asks before it shows the link).
      if (ctx.query.get('probe') !== null && !oidc) {
        ctx.response = { kind: 'json', status: 200, headers: { 'cache-control': 'no-store' }, body: { object: 'admin.session.oidc', enabled: false, provider: null } };
        return;
      }
      if (!oidc) throw notFound('Login through an OpenID provider is not configured (auth.type oauth with auth.issuer, auth.clientId and auth.clientSecret).');
      const adminToken = adminTokenOrOff();
      if (ctx.query.get('probe') !== null) {
        ctx.response = { kind: 'json', status: 200, headers: { 'cache-control': 'no-store' }, body: { object: 'admin.session.oidc', enabled: true, provider: oidc.name } };
        return;
      }
      const insecure = insecureTransportError(ctx.req, gateway);
      if (insecure) throw insecure;
      const state = newOidcState();
      const { location, attempt } = await oidc.start(state, callbackUrl(ctx));
      ctx.res.setHeader('set-cookie', oidcCookie(ctx.req, sealOidcLogin(state, attempt, adminToken)));
      ctx.response = { kind: 'empty', status: 302, headers: { location, 'cache-control': 'no-store' } };
    };
    const oidcCallback = async (ctx: Ctx) => {
      if (!oidc) throw notFound('Login through an OpenID provider is not configured (auth.type oauth with auth.issuer, auth.clientId and auth.clientSecret).');
      const adminToken = adminTokenOrOff();
      const state = ctx.query.get('state') ?? '';
      const login = state ? openOidcLogin(ctx.req, state, adminToken) : undefined;
      // Used once: the attempt's cookie is cleared whatever comes next.
      ctx.res.setHeader('set-cookie', oidcCookie(ctx.req, undefined));
      if (!login) throw badRequest('This login through the identity provider is unknown, expired or was not started in this browser: start again.', 'state');
      if (ctx.query.get('error')) throw unauthenticated('The identity provider did not log the user in.', publicBaseUrl(ctx.req, gateway));
      const code = ctx.query.get('code');
      if (!code) throw badRequest('The identity provider sent no code.', 'code');
      ctx.secrets.push(code);
      const identity = await oidc.finish(code, { nonce: login.nonce, verifier: login.verifier }, callbackUrl(ctx));
      // The role is the user's in the tenants (users.<id>.roles), checked again on every request.
      const tenantUser = identity.user && userRoles ? await userRoles(identity.user) : undefined;
      // Without a team claim, the user is of the team the tenants give it (a team_admin role there manages that team).
      const user = identity.team === undefined && tenantUser?.team !== undefined ? { ...identity, team: tenantUser.team } : identity;
      const access = adminAccessOf({ ...user, roles: [] }, tenantUser, ADMIN_ROLES);
      if (!access) throw forbidden(`The user ${identity.user ?? ''} holds none of the admin roles (${ADMIN_ROLES.join(', ')}) in the tenants.`);
      const made = await sessions.create(access, user, gateway, adminToken);
      ctx.res.setHeader('set-cookie', [oidcCookie(ctx.req, undefined), ...sessionCookies(ctx.req, made.cookie, sessionTtl(gateway), made.session.csrf)]);
      services.logger.info({ audit: 'admin.session.create', requestId: ctx.id, role: access.role, user: identity.user, via: 'oidc' }, 'admin session opened');
      ctx.response = { kind: 'empty', status: 302, headers: { location: '/ui/', 'cache-control': 'no-store' } };
    };
    return async (ctx) => {
      ctx.set(CALLER, true);
      switch (ctx.endpoint.operation) {
        case 'admin.session.oidc':
          return oidcStart(ctx);
        case 'admin.session.oidc.callback':
          return oidcCallback(ctx);
        case 'admin.session.create':
          return login(ctx);
        case 'admin.session.retrieve': {
          const session = await current(ctx, adminTokenOrOff());
          ctx.response = { kind: 'json', status: 200, headers: { 'cache-control': 'no-store' }, body: sessionBody(session, readOnly) };
          return;
        }
        case 'admin.session.delete': {
          const session = await current(ctx, adminTokenOrOff());
          checkSessionRequest(ctx.req, session, gateway, true);
          await sessions.end(session);
          ctx.res.setHeader('set-cookie', sessionCookies(ctx.req, undefined, 0, undefined));
          ctx.response = { kind: 'empty', status: 204 };
          return;
        }
        default:
          throw notFound(`No route ${ctx.method} ${ctx.path}.`);
      }
    };
  },
});
