import type { Identity } from '../../kernel/engine/context.js';
import { defineSlot } from '../../kernel/engine/slot.js';
import { defineService } from '../../kernel/engine/services.js';
import type { AdminAccess, UserRoles } from './admin-roles.js';
import type { AdminSessions } from './admin-session.js';
import type { ConfigKeys } from './config-keys.js';
import type { ProviderRouteAuthenticator } from './provider-route-auth.js';
import type { TokenService } from './token-service.js';
import { ALL_SCOPES } from './scopes.js';

/** Tokens issued by the token operations (durable, in the store). */
export const TOKEN_SERVICE = defineService<TokenService>('token-service');
/** The admin API's cookie sessions (POST /v1/admin/session), in the store every worker and instance shares. */
export const ADMIN_SESSIONS = defineService<AdminSessions>('admin-sessions');
/** Keys of auth.apiKeys. */
export const CONFIG_KEYS = defineService<ConfigKeys>('config-keys');
/** Gateway credentials on provider routes (x-gateway-token). */
export const PROVIDER_ROUTE_AUTH = defineService<ProviderRouteAuthenticator>('provider-route-auth');

/** Set by authenticate with credential gateway: ctx.identity is the caller of the tool-server endpoint (anonymous with auth disabled). */
export const GATEWAY_CALLER = defineSlot<true>('gateway-caller', 'a gateway credential (authenticate with credential: gateway)');
/** Set by authenticate with credential admin: the admin token was checked. */
export const ADMIN = defineSlot<true>('admin', 'the admin credential (authenticate with credential: admin)');
/** Set by authenticate with credential admin: the caller's role (the admin token: admin; a key: the role it holds). */
export const ADMIN_ACCESS = defineSlot<AdminAccess>('admin-access', 'the admin role (authenticate with credential: admin)');
/** Set before the token list runs by a stage that narrows it (a team_admin sees its own team's keys): only that team's keys are listed and paged (in the store's query). */
export const TOKEN_LIST_SCOPE = defineSlot<{ team: string }>('token-list-scope', 'the keys a token list may show');
/** A user's roles in the tenants (provided by the tenants, read by authenticate's `roles`). */
export const USER_ROLES = defineService<UserRoles>('user-roles');

/** The caller of /mcp when auth is disabled: every scope, no narrowing. */
export const ANONYMOUS: Identity = Object.freeze({ kind: 'anonymous', id: 'anonymous', scopes: [...ALL_SCOPES] }) as Identity;

/** The caller of a token operation once the admin token checked. */
export const ADMIN_IDENTITY: Identity = Object.freeze({ kind: 'admin', id: 'admin', user: 'admin' }) as Identity;

export { TOKEN_PREFIX } from './secrets.js';
export { ADMIN_ROLES, type AdminAccess, type AdminRole } from './admin-roles.js';
export type { TokenResource } from './token-service.js';
