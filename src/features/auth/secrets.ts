import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Every gateway-issued token starts with this, so a leaked one is easy to recognize and scan for. */
export const TOKEN_PREFIX = 'gwt_';

/** A new token value: the prefix and 32 random bytes, base64url (256 bits of entropy). */
export function newTokenValue(): string {
  return TOKEN_PREFIX + randomBytes(32).toString('base64url');
}

/** A new token id (shown in lists and paths; not a secret). */
export function newTokenId(): string {
  return `tok_${randomBytes(12).toString('hex')}`;
}

/** SHA-256 (hex) of a secret: what the store keeps instead of the value. */
export function hashSecret(value: string): string {
  return hash('sha256', value, 'hex');
}

/** SHA-256 of a secret as bytes (one call, no hash object): what constant-time comparisons take. */
export function secretDigest(value: string): Buffer {
  // Hex and back is quicker than crypto.hash's own 'buffer' output on Node 20.
  return Buffer.from(hash('sha256', value, 'hex'), 'hex');
}

/** Compares two secrets in time that does not depend on where they differ (nor on their lengths). */
export function secretsEqual(given: string, expected: string): boolean {
  return timingSafeEqual(secretDigest(given), secretDigest(expected));
}

/** "30d" / "12h" / "15m" / "90s" -> seconds. */
export function parseLifetime(text: string): number {
  const m = /^(\d+)([dhms])$/.exec(text.trim());
  if (!m) throw new Error(`not a lifetime: ${text}`);
  const n = Number(m[1]);
  return m[2] === 'd' ? n * 86_400 : m[2] === 'h' ? n * 3_600 : m[2] === 'm' ? n * 60 : n;
}

/** The bearer value of an Authorization header, if it has one. */
export function bearerValue(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return undefined;
  const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(value);
  return m ? m[1] : undefined;
}
