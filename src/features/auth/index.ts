/**
 * The public entry of the auth feature: what other features and the stages may use (identity,
 * the admin gate, the token service, gateway keys, credential checks, the caller's identity
 * forwarded upstream, its stages). Everything else in this folder is its own business (eslint/layers.js refuses imports of it from another feature).
 */
export {
  ADMIN,
  ADMIN_ACCESS,
  ADMIN_SESSIONS,
  ANONYMOUS,
  CONFIG_KEYS,
  GATEWAY_CALLER,
  PROVIDER_ROUTE_AUTH,
  TOKEN_LIST_SCOPE,
  TOKEN_PREFIX,
  TOKEN_SERVICE,
  USER_ROLES,
  type AdminAccess,
  type TokenResource,
} from './auth-services.js';
export { GATEWAY_KEY, type GatewayKey } from './gateway-key.js';
export { checkAdminOrKey } from './admin-check.js';
export { FULL_ADMIN } from './admin-roles.js';
export { GATEWAY_KEY_HEADERS, presentedGatewayKey } from './provider-route-auth.js';
export { requireGatewayKey } from './own-route-key.js';
export { AUTH_MODES } from './modes/auth-mode.js';
export { metricsAccess } from './metrics-access.js';
export { IDENTITY_FORWARD_HEADERS, IDENTITY_META_KEY, forwardedIdentity, identityHeaders } from './identity-forwarding.js';
export { AUTH_STAGES } from './stages/auth-stages.js';
export { checkGatewayCredential } from './gateway-credentials.js';
export { publicBaseUrl } from './public-url.js';
export { markOwnRequestSocket } from './transport-security.js';
export { ALL_SCOPES, canRead, canWrite } from './scopes.js';
export { bearerValue } from './secrets.js';
export { authFeature } from './auth-feature.js';
