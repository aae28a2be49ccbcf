import { createCipheriv, createDecipheriv, randomBytes, scryptSync } from 'node:crypto';

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * The 32-byte key of a configured secret: 64 hex digits or base64 of 32 bytes are used as they
 * are; anything else is a passphrase, stretched with scrypt and the install's salt.
 */
export function deriveKey(secret: string, salt: Buffer): Buffer {
  const text = secret.trim();
  if (/^[0-9a-fA-F]{64}$/.test(text)) return Buffer.from(text, 'hex');
  if (/^[A-Za-z0-9+/_-]{42,44}={0,2}$/.test(text)) {
    const bytes = Buffer.from(text, text.includes('-') || text.includes('_') ? 'base64url' : 'base64');
    if (bytes.length === 32) return bytes;
  }
  return scryptSync(text, salt, 32, { N: 1 << 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 });
}

/**
 * AES-256-GCM for values at rest: `v1:<base64 of iv | tag | ciphertext>`, a random 12-byte IV
 * per value, the tag checked on every read. `keys[0]` encrypts; every key decrypts (the others
 * are previous keys, read during a rotation).
 */
export class SecretBox {
  constructor(private readonly keys: readonly Buffer[]) {
    if (!keys.length) throw new Error('SecretBox needs a key');
  }

  encrypt(plain: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.keys[0]!, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return `${VERSION}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
  }

  /** The plain text and the index of the key that opened it (0: the current key); undefined when no key opens it or it was altered. */
  decrypt(sealed: string): { plain: string; keyIndex: number } | undefined {
    if (!sealed.startsWith(`${VERSION}:`)) return undefined;
    const bytes = Buffer.from(sealed.slice(VERSION.length + 1), 'base64');
    if (bytes.length < IV_BYTES + TAG_BYTES) return undefined;
    const iv = bytes.subarray(0, IV_BYTES);
    const tag = bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES);
    const body = bytes.subarray(IV_BYTES + TAG_BYTES);
    for (let i = 0; i < this.keys.length; i++) {
      try {
        const decipher = createDecipheriv('aes-256-gcm', this.keys[i]!, iv);
        decipher.setAuthTag(tag);
        return { plain: Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8'), keyIndex: i };
      } catch {
        // Not this key (or altered): the tag does not check.
      }
    }
    return undefined;
  }
}
