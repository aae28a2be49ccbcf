import { createHmac } from 'node:crypto';
import { defineSlot } from '../../kernel/engine/slot.js';
/** The caller's identity headers, set by the forward-identity stage for the forward stages to send. */
export const IDENTITY_FORWARD_HEADERS = defineSlot('identity-headers', "the caller's identity headers");
const FIELDS = ['email', 'name', 'team', 'roles', 'organization'];
/** Header name of each forwarded field. */
export const IDENTITY_HEADERS = {
    email: 'X-User-Email',
    name: 'X-User-Name',
    team: 'X-User-Team',
    roles: 'X-User-Roles',
    organization: 'X-Organization-Id',
};
export const SIGNATURE_HEADER = 'X-Gateway-Identity-Signature';
/** Where a process tool server finds the same values: `params._meta[IDENTITY_META_KEY]`. */
export const IDENTITY_META_KEY = 'io.gateway/identity';
/** Every header a caller might send to pose as someone else; dropped before anything is forwarded. */
export const FORGEABLE_HEADERS = [...Object.values(IDENTITY_HEADERS), SIGNATURE_HEADER].map((h) => h.toLowerCase());
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
function clean(value) {
    const v = value?.trim();
    // A value that could split a header line is never forwarded.
    return v && !/[\r\n\0]/.test(v) ? v : undefined;
}
/**
 * The identity values of a caller, by the contract's rules: name is the identity's name or else
 * its user (tokens and keys); email its email, or else its user when that is an email address;
 * roles comma-separated; organization falls back to identityForwarding.organizationId. Limited
 * to identityForwarding.headers when given. Anonymous callers (auth disabled) forward nothing.
 */
export function forwardedIdentity(identity, config = {}) {
    if (!identity || identity.kind === 'anonymous' || config.enabled === false)
        return {};
    const byUser = identity.kind === 'token' || identity.kind === 'api-key';
    const all = {
        email: clean(identity.email) ?? (byUser && identity.user && EMAIL.test(identity.user) ? clean(identity.user) : undefined),
        name: clean(identity.name) ?? (byUser ? clean(identity.user) : undefined),
        team: clean(identity.team),
        roles: clean(identity.roles?.map((r) => r.trim()).filter(Boolean).join(',')),
        organization: clean(identity.organization) ?? clean(config.organizationId),
    };
    const allowed = config.headers?.length ? new Set(config.headers) : undefined;
    const out = {};
    for (const field of FIELDS) {
        if (all[field] !== undefined && (!allowed || allowed.has(field)))
            out[field] = all[field];
    }
    return out;
}
/** `t=<unix>,v1=<hex HMAC-SHA256 of "t.email.name.team.roles.org">`, missing fields as empty strings. */
export function identitySignature(values, secret, unixSeconds = Math.floor(Date.now() / 1000)) {
    const payload = [String(unixSeconds), values.email ?? '', values.name ?? '', values.team ?? '', values.roles ?? '', values.organization ?? ''].join('.');
    return `t=${unixSeconds},v1=${createHmac('sha256', secret).update(payload).digest('hex')}`;
}
/**
 * The headers that carry a caller's identity to a tool server (or, through the forward-identity
 * stage, to a provider): one per field with a value, plus the signature when a signing secret is
 * configured and there is something to sign.
 */
export function identityHeaders(identity, config = {}, unixSeconds) {
    const values = forwardedIdentity(identity, config);
    const headers = {};
    for (const field of FIELDS) {
        const value = values[field];
        if (value === undefined)
            continue;
        // A value no header can carry (beyond Latin-1) is not sent, and not signed either.
        if (/[^\t\x20-\x7e\x80-\xff]/.test(value))
            delete values[field];
        else
            headers[IDENTITY_HEADERS[field]] = value;
    }
    if (config.signingSecret && Object.keys(headers).length > 0)
        headers[SIGNATURE_HEADER] = identitySignature(values, config.signingSecret, unixSeconds);
    return headers;
}
/** Removes identity headers a caller sent itself, so they can never be passed on. */
export function dropForgedIdentityHeaders(headers) {
    for (const name of FORGEABLE_HEADERS)
        delete headers[name];
}
//# sourceMappingURL=identity-forwarding.js.map