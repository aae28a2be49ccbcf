import { createPrivateKey, createPublicKey, randomBytes, type KeyObject } from 'node:crypto';
import type { JWK, JWTPayload } from 'jose';

/** The key that signs the gateway's access tokens, and its public half as a JWKS. */
export class SigningKey {
  private constructor(
    private readonly privateKey: KeyObject,
    readonly publicKey: KeyObject,
    readonly alg: 'ES256' | 'EdDSA',
    readonly kid: string,
    readonly jwk: JWK,
  ) {}

  /** From auth.oauth.signingKey (PEM, PKCS#8: EC P-256 or Ed25519), or a new P-256 key. */
  static async load(pem: string | undefined): Promise<SigningKey> {
    const { exportJWK, calculateJwkThumbprint } = await import('jose');
    let privateKey: KeyObject;
    if (pem) {
      try {
        privateKey = createPrivateKey({ key: pem, format: 'pem' });
      } catch {
        throw new Error('auth.oauth.signingKey: is not a PEM private key');
      }
    } else {
      const { generateKeyPairSync } = await import('node:crypto');
      privateKey = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
    }
    let alg: 'ES256' | 'EdDSA';
    if (privateKey.asymmetricKeyType === 'ed25519') alg = 'EdDSA';
    else if (privateKey.asymmetricKeyType === 'ec' && privateKey.asymmetricKeyDetails?.namedCurve === 'prime256v1') alg = 'ES256';
    else throw new Error('auth.oauth.signingKey: must be an EC P-256 (ES256) or Ed25519 (EdDSA) private key');
    const publicKey = createPublicKey(privateKey);
    const base = await exportJWK(publicKey);
    const kid = await calculateJwkThumbprint(base);
    return new SigningKey(privateKey, publicKey, alg, kid, { ...base, kid, alg, use: 'sig' });
  }

  get jwks(): { keys: JWK[] } {
    return { keys: [this.jwk] };
  }

  async sign(claims: JWTPayload, issuer: string, audience: string, lifetime: number): Promise<{ token: string; jti: string; expiresAt: number }> {
    const { SignJWT } = await import('jose');
    const now = Math.floor(Date.now() / 1000);
    const jti = randomBytes(16).toString('base64url');
    const token = await new SignJWT(claims)
      .setProtectedHeader({ alg: this.alg, kid: this.kid, typ: 'at+jwt' })
      .setIssuer(issuer)
      .setAudience(audience)
      .setIssuedAt(now)
      .setNotBefore(now - 1)
      .setExpirationTime(now + lifetime)
      .setJti(jti)
      .sign(this.privateKey);
    return { token, jti, expiresAt: now + lifetime };
  }
}
