import { GatewayError } from '../../contract/errors/gateway-error.js';
import { resourceMetadataUrl } from './public-url.js';
/** The challenge every 401 carries: where the RFC 9728 protected-resource metadata is. */
export function bearerChallenge(base) {
    return `Bearer resource_metadata="${resourceMetadataUrl(base)}"`;
}
/** 401 authentication_error with the WWW-Authenticate challenge. */
export function unauthenticated(message, base) {
    return new GatewayError('invalid_api_key', message, { headers: { 'WWW-Authenticate': bearerChallenge(base) } });
}
/** 403 for a valid OAuth token that lacks required scopes (RFC 6750 insufficient_scope). */
export function insufficientScope(message, base, scopes) {
    const scope = scopes.join(' ').replace(/"/g, '');
    return new GatewayError('insufficient_permissions', message, {
        headers: { 'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${scope}", resource_metadata="${resourceMetadataUrl(base)}"` },
    });
}
//# sourceMappingURL=challenge.js.map