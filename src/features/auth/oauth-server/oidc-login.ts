import { createHash, randomBytes } from 'node:crypto';
import { request } from 'undici';
import type { createRemoteJWKSet, JWTPayload } from 'jose';
import type { AuthConfig } from '../../../generated/gateway.js';
import type { Identity } from '../../../kernel/engine/context.js';
import { GatewayError } from '../../../contract/errors/gateway-error.js';
import type { Logger } from '../../../kernel/observability/logger.js';
import { identityFromClaims } from '../oauth-verifier.js';

interface Provider {
  issuer: string;
  authorizationEndpoint: string;
  tokenEndpoint: string;
  jwks: ReturnType<typeof createRemoteJWKSet>;
}

/** What a login through the provider keeps between the redirect and the callback. */
export interface OidcAttempt {
  nonce: string;
  verifier: string;
}

const trimSlash = (s: string) => s.replace(/\/+$/, '');
const unavailable = () => new GatewayError('service_unavailable', 'The identity provider could not be reached; try again shortly.');

/**
 * Login delegated to the upstream OpenID provider (auth.issuer, auth.clientId, auth.clientSecret):
 * a redirect to its authorization endpoint (code flow with PKCE and a nonce), the code exchanged
 * at its token endpoint, the id_token verified with its published keys.
 */
export class OidcLogin {
  private provider?: Promise<Provider>;

  constructor(
    private readonly auth: AuthConfig,
    private readonly logger: Logger,
  ) {}

  get name(): string {
    return this.auth.provider ?? new URL(this.auth.issuer!).host;
  }

  private discover(): Promise<Provider> {
    this.provider ??= this.load().catch((err) => {
      this.provider = undefined;
      this.logger.warn({ issuer: this.auth.issuer, err: (err as Error).message }, 'OIDC discovery failed');
      throw unavailable();
    });
    return this.provider;
  }

  private async load(): Promise<Provider> {
    const issuer = trimSlash(this.auth.issuer!);
    const res = await request(`${issuer}/.well-known/openid-configuration`, { method: 'GET', headersTimeout: 10_000, bodyTimeout: 10_000 });
    if (res.statusCode !== 200) {
      await res.body.dump();
      throw new Error(`discovery document answered ${res.statusCode}`);
    }
    const doc = (await res.body.json()) as Record<string, unknown>;
    if (typeof doc.issuer !== 'string' || trimSlash(doc.issuer) !== issuer) throw new Error(`discovery document names issuer ${String(doc.issuer)}, not ${issuer}`);
    for (const k of ['authorization_endpoint', 'token_endpoint', 'jwks_uri']) if (typeof doc[k] !== 'string') throw new Error(`discovery document has no ${k}`);
    const { createRemoteJWKSet } = await import('jose');
    return {
      issuer: doc.issuer,
      authorizationEndpoint: doc.authorization_endpoint as string,
      tokenEndpoint: doc.token_endpoint as string,
      jwks: createRemoteJWKSet(new URL(doc.jwks_uri as string)),
    };
  }

  /** Where to send the browser, and what to keep for the callback. */
  async start(state: string, callbackUrl: string): Promise<{ location: string; attempt: OidcAttempt }> {
    const provider = await this.discover();
    const attempt: OidcAttempt = { nonce: randomBytes(16).toString('base64url'), verifier: randomBytes(32).toString('base64url') };
    const url = new URL(provider.authorizationEndpoint);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('client_id', this.auth.clientId!);
    url.searchParams.set('redirect_uri', callbackUrl);
    url.searchParams.set('scope', 'openid email profile');
    url.searchParams.set('state', state);
    url.searchParams.set('nonce', attempt.nonce);
    url.searchParams.set('code_challenge', createHash('sha256').update(attempt.verifier).digest('base64url'));
    url.searchParams.set('code_challenge_method', 'S256');
    return { location: url.href, attempt };
  }

  /** The identity of the user the provider logged in; throws a 401 GatewayError when the answer does not hold. */
  async finish(code: string, attempt: OidcAttempt, callbackUrl: string): Promise<Identity> {
    const provider = await this.discover();
    const body = new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: callbackUrl, code_verifier: attempt.verifier });
    const basic = Buffer.from(`${encodeURIComponent(this.auth.clientId!)}:${encodeURIComponent(this.auth.clientSecret!)}`).toString('base64');
    let answer: Record<string, unknown>;
    try {
      const res = await request(provider.tokenEndpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', authorization: `Basic ${basic}` },
        body: body.toString(),
        headersTimeout: 10_000,
        bodyTimeout: 10_000,
      });
      answer = (await res.body.json().catch(() => ({}))) as Record<string, unknown>;
      if (res.statusCode !== 200)
        throw new GatewayError('invalid_api_key', `The identity provider refused the login (${typeof answer.error === 'string' ? answer.error : res.statusCode}).`);
    } catch (err) {
      if (err instanceof GatewayError) throw err;
      this.logger.warn({ issuer: this.auth.issuer, err: (err as Error).message }, 'OIDC code exchange failed');
      throw unavailable();
    }
    if (typeof answer.id_token !== 'string') throw new GatewayError('invalid_api_key', 'The identity provider answered without an id_token.');
    const { jwtVerify } = await import('jose');
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(answer.id_token, provider.jwks, { issuer: provider.issuer, audience: this.auth.clientId!, clockTolerance: 30 }));
    } catch {
      throw new GatewayError('invalid_api_key', "The identity provider's id_token is not valid.");
    }
    if (payload.nonce !== attempt.nonce) throw new GatewayError('invalid_api_key', "The identity provider's id_token is not for this login (nonce).");
    if (typeof payload.sub !== 'string' || !payload.sub) throw new GatewayError('invalid_api_key', "The identity provider's id_token names no subject.");
    return identityFromClaims(payload, provider.issuer, [], this.auth.claims ?? {});
  }
}
