import bearer from './bearer.js';
import apiKey from './api-key.js';
import oauth from './oauth.js';
import mtls from './mtls.js';
/** The auth modes that ship with the gateway (auth.type); plugins add more (kind: auth-mode). */
export const BUILTIN_AUTH_MODES = [bearer, apiKey, oauth, mtls];
//# sourceMappingURL=builtin-auth-modes.js.map