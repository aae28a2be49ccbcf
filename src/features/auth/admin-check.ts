import type { IncomingMessage } from 'node:http';
import type { GatewayConfig } from '../../generated/gateway.js';
import { forbidden } from '../../contract/errors/gateway-error.js';
import type { Identity } from '../../kernel/engine/context.js';
import { adminAccessOf, FULL_ADMIN, type AdminAccess, type AdminRole, type UserRoles } from './admin-roles.js';
import { checkSessionRequest, invalidSession, presentsSession, type AdminSessions } from './admin-session.js';
import { ADMIN_IDENTITY } from './auth-services.js';
import { unauthenticated } from './challenge.js';
import type { ConfigKeys } from './config-keys.js';
import { checkGatewayCredential } from './gateway-credentials.js';
import { publicBaseUrl } from './public-url.js';
import { bearerValue, secretsEqual } from './secrets.js';
import type { TokenService } from './token-service.js';
import { insecureTransportError } from './transport-security.js';

/**
 * Checks the admin bearer token of a token operation. With no admin token configured the
 * operations are disabled: every request gets 403. Otherwise a missing or wrong token is 401.
 */
export function checkAdmin(req: IncomingMessage, config: GatewayConfig): void {
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

/**
 * The admin API with `roles`: the admin token (full access), or a gateway key (Authorization:
 * Bearer, or x-gateway-token) whose roles or its user's include one of `roles`. No credential
 * or an invalid one is 401; a valid key without such a role is 403; with no admin token
 * configured the admin API is off (403 for everyone).
 */
export async function checkAdminOrKey(
  req: IncomingMessage,
  config: GatewayConfig,
  roles: readonly AdminRole[],
  tokens: TokenService,
  keys: ConfigKeys | undefined,
  userRoles: UserRoles | undefined,
  sessions: AdminSessions | undefined,
): Promise<{ identity: Identity; access: AdminAccess }> {
  const adminToken = config.auth?.adminToken;
  if (adminToken && presentsSession(req)) return checkSession(req, config, roles, sessions);
  // As for the token operations: without an admin token the admin API is off, for keys with roles too.
  if (!adminToken) throw forbidden('The admin API is disabled: no admin token is configured (auth.adminToken or GATEWAY_ADMIN_TOKEN).');
  const header = req.headers['x-gateway-token'];
  const given = bearerValue(req.headers.authorization) ?? (typeof header === 'string' && header ? header : undefined);
  const base = publicBaseUrl(req, config);
  if (!given) throw unauthenticated('The admin API needs Authorization: Bearer <admin token or gateway key>.', base);
  const insecure = insecureTransportError(req, config);
  if (insecure) throw insecure;
  if (secretsEqual(given, adminToken)) return { identity: ADMIN_IDENTITY, access: FULL_ADMIN };
  const checked = await checkGatewayCredential(given, tokens, keys);
  // A blocked key is a valid credential its owner stopped: 403, as on every other route (contract §8).
  if (!checked.ok) throw checked.blocked ? forbidden(checked.message) : unauthenticated(`The admin token or key is not valid: ${checked.message}`, base);
  const { identity } = checked;
  const access = adminAccessOf(identity, identity.user && userRoles ? await userRoles(identity.user) : undefined, roles);
  if (!access) throw forbidden(`This key holds none of the roles the admin API takes (${roles.join(', ')}).`);
  return { identity, access };
}

/**
 * A request authenticated by an admin session cookie (POST /v1/admin/session): the session must
 * be valid (signed with the admin token, in the shared store, not expired or ended; it ends when
 * its key is revoked, blocked or expires, or no longer holds the session's role), hold one of `roles`, and carry its CSRF
 * token on writes; `ui.readOnly` refuses its writes.
 */
export async function checkSession(
  req: IncomingMessage,
  config: GatewayConfig,
  roles: readonly AdminRole[],
  sessions: AdminSessions | undefined,
): Promise<{ identity: Identity; access: AdminAccess }> {
  const adminToken = config.auth?.adminToken;
  if (!adminToken) throw forbidden('The admin API is disabled: no admin token is configured (auth.adminToken or GATEWAY_ADMIN_TOKEN).');
  const insecure = insecureTransportError(req, config);
  if (insecure) throw insecure;
  const session = await sessions?.read(req, adminToken);
  if (!session) throw invalidSession();
  if (!roles.includes(session.access.role)) throw forbidden(`This session's role (${session.access.role}) is none of the roles this route takes (${roles.join(', ')}).`);
  checkSessionRequest(req, session, config);
  return { identity: session.identity, access: session.access };
}
