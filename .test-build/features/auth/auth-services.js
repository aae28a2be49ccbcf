import { defineSlot } from '../../kernel/engine/slot.js';
import { defineService } from '../../kernel/engine/services.js';
import { ALL_SCOPES } from './scopes.js';
/** Tokens issued by the token operations (durable, in the store). */
export const TOKEN_SERVICE = defineService('token-service');
/** Keys of auth.apiKeys. */
export const CONFIG_KEYS = defineService('config-keys');
/** Gateway credentials on provider routes (x-gateway-token). */
export const PROVIDER_ROUTE_AUTH = defineService('provider-route-auth');
/** Set by authenticate with credential gateway: ctx.identity is the caller of the tool-server endpoint (anonymous with auth disabled). */
export const GATEWAY_CALLER = defineSlot('gateway-caller', 'a gateway credential (authenticate with credential: gateway)');
/** Set by authenticate with credential admin: the admin token was checked. */
export const ADMIN = defineSlot('admin', 'the admin credential (authenticate with credential: admin)');
/** The caller of /mcp when auth is disabled: every scope, no narrowing. */
export const ANONYMOUS = Object.freeze({ kind: 'anonymous', id: 'anonymous', scopes: [...ALL_SCOPES] });
/** The caller of a token operation once the admin token checked. */
export const ADMIN_IDENTITY = Object.freeze({ kind: 'admin', id: 'admin', user: 'admin' });
//# sourceMappingURL=auth-services.js.map