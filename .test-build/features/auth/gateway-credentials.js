import { TOKEN_PREFIX } from './secrets.js';
const REASONS = {
    unknown: 'The credential is not valid.',
    expired: 'The credential has expired.',
    revoked: 'The token has been revoked.',
};
/**
 * Checks a gateway credential: a token issued by the token operations (recognized by its
 * prefix, checked against the store) or, when `configKeys` are accepted, a key of auth.apiKeys.
 */
export async function checkGatewayCredential(value, tokens, keys) {
    if (value.startsWith(TOKEN_PREFIX)) {
        const result = await tokens.check(value);
        return result.ok ? result : { ok: false, message: REASONS[result.reason] };
    }
    if (keys) {
        const result = keys.check(value);
        return result.ok ? result : { ok: false, message: REASONS[result.reason] };
    }
    return { ok: false, message: REASONS.unknown };
}
//# sourceMappingURL=gateway-credentials.js.map