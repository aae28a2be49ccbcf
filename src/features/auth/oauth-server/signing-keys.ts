import type { KeyObject } from 'node:crypto';
import type { JWK, JWTPayload, JWSHeaderParameters } from 'jose';
import { SigningKey } from './signing-key.js';

/**
 * The keys of the gateway's access tokens during a rotation: the current key signs; the previous
 * keys (auth.oauth.previousSigningKeys) still verify the tokens they signed, by the `kid` of the
 * token's header, until they are removed from the config (once the longest access token lifetime
 * has passed). The JWKS serves them all, the current key first.
 */
export class SigningKeys {
  private readonly byKid: Map<string, SigningKey>;
  /** The algorithms of the held keys (a token of any other is refused). */
  readonly algorithms: string[];

  constructor(
    readonly current: SigningKey,
    readonly previous: readonly SigningKey[] = [],
  ) {
    this.byKid = new Map([current, ...previous].map((k) => [k.kid, k]));
    this.algorithms = [...new Set([current, ...previous].map((k) => k.alg))];
  }

  /** auth.oauth.signingKey (or a new key) and auth.oauth.previousSigningKeys. */
  static async load(pem: string | undefined, previous: readonly string[] = []): Promise<SigningKeys> {
    const current = await SigningKey.load(pem);
    const older: SigningKey[] = [];
    for (const [i, p] of previous.entries()) {
      try {
        older.push(await SigningKey.load(p));
      } catch (err) {
        throw new Error((err as Error).message.replace('auth.oauth.signingKey', `auth.oauth.previousSigningKeys[${i}]`));
      }
    }
    return new SigningKeys(current, older);
  }

  get jwks(): { keys: JWK[] } {
    return { keys: [...this.byKid.values()].map((k) => k.jwk) };
  }

  sign(claims: JWTPayload, issuer: string, audience: string, lifetime: number): Promise<{ token: string; jti: string; expiresAt: number }> {
    return this.current.sign(claims, issuer, audience, lifetime);
  }

  /** The public key that verifies a token with this header (its kid and alg); throws for a key not held. */
  readonly verificationKey = (header: JWSHeaderParameters): KeyObject => {
    const key = typeof header.kid === 'string' ? this.byKid.get(header.kid) : undefined;
    if (!key || key.alg !== header.alg)
      throw Object.assign(new Error('The token is signed by a key this gateway does not hold.'), { code: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED' });
    return key.publicKey;
  };
}
