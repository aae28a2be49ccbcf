import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
/** Every gateway-issued token starts with this, so a leaked one is easy to recognize and scan for. */
export const TOKEN_PREFIX = 'gwt_';
/** A new token value: the prefix and 32 random bytes, base64url (256 bits of entropy). */
export function newTokenValue() {
    return TOKEN_PREFIX + randomBytes(32).toString('base64url');
}
/** A new token id (shown in lists and paths; not a secret). */
export function newTokenId() {
    return `tok_${randomBytes(12).toString('hex')}`;
}
/** SHA-256 (hex) of a secret: what the store keeps instead of the value. */
export function hashSecret(value) {
    return createHash('sha256').update(value, 'utf8').digest('hex');
}
/** Compares two secrets in time that does not depend on where they differ (nor on their lengths). */
export function secretsEqual(given, expected) {
    const a = createHash('sha256').update(given, 'utf8').digest();
    const b = createHash('sha256').update(expected, 'utf8').digest();
    return timingSafeEqual(a, b);
}
/** Compares two hex digests of equal length in constant time. */
export function digestsEqual(a, b) {
    if (a.length !== b.length)
        return false;
    return timingSafeEqual(Buffer.from(a, 'hex'), Buffer.from(b, 'hex'));
}
/** "30d" / "12h" / "15m" / "90s" -> seconds. */
export function parseLifetime(text) {
    const m = /^(\d+)([dhms])$/.exec(text.trim());
    if (!m)
        throw new Error(`not a lifetime: ${text}`);
    const n = Number(m[1]);
    return m[2] === 'd' ? n * 86_400 : m[2] === 'h' ? n * 3_600 : m[2] === 'm' ? n * 60 : n;
}
/** The bearer value of an Authorization header, if it has one. */
export function bearerValue(header) {
    const value = Array.isArray(header) ? header[0] : header;
    if (!value)
        return undefined;
    const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(value);
    return m ? m[1] : undefined;
}
//# sourceMappingURL=secrets.js.map