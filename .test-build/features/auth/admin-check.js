import { forbidden } from '../../contract/errors/gateway-error.js';
import { unauthenticated } from './challenge.js';
import { publicBaseUrl } from './public-url.js';
import { bearerValue, secretsEqual } from './secrets.js';
import { insecureTransportError } from './transport-security.js';
/**
 * Checks the admin bearer token of a token operation. With no admin token configured the
 * operations are disabled: every request gets 403. Otherwise a missing or wrong token is 401.
 */
export function checkAdmin(req, config) {
    const adminToken = config.auth?.adminToken;
    if (!adminToken) {
        throw forbidden('The token operations are disabled: no admin token is configured (auth.adminToken or GATEWAY_ADMIN_TOKEN).');
    }
    const given = bearerValue(req.headers.authorization);
    if (!given)
        throw unauthenticated('The token operations need Authorization: Bearer <admin token>.', publicBaseUrl(req, config));
    const insecure = insecureTransportError(req, config);
    if (insecure)
        throw insecure;
    if (!secretsEqual(given, adminToken))
        throw unauthenticated('The admin token is not valid.', publicBaseUrl(req, config));
}
//# sourceMappingURL=admin-check.js.map