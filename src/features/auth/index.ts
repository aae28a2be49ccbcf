/**
 * The public entry of the auth feature: what other features may use (identity, the admin
 * gate, the token service, gateway keys, credential checks). Everything else in this folder is
 * its own business (eslint/layers.js refuses imports of it from another feature).
 */
export {
  ADMIN,
  ADMIN_ACCESS,
  ADMIN_SESSIONS,
  ANONYMOUS,
  CONFIG_KEYS,
  TOKEN_LIST_SCOPE,
  TOKEN_PREFIX,
  TOKEN_SERVICE,
  USER_ROLES,
  type AdminAccess,
  type TokenResource,
} from './auth-services.js';
export { GATEWAY_KEY, type GatewayKey } from './gateway-key.js';
export { checkAdminCredential } from './admin-check.js';
export { checkGatewayCredential } from './gateway-credentials.js';
export { publicBaseUrl } from './public-url.js';
export { canRead, canWrite } from './scopes.js';
export { bearerValue } from './secrets.js';
