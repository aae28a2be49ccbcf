/**
 * OAuth access tokens for service accounts (the JWT bearer grant, RFC 7523): the gateway signs
 * the grant itself (RS256, iss = client_email, scope cloud-platform, aud = token_uri, valid one
 * hour), exchanges it at the key's token_uri, and keeps the token per service account until
 * shortly before it expires. Concurrent requests for one account share one exchange.
 */
import { createHash } from 'node:crypto';
import { request } from 'undici';
import { badRequest, GatewayError } from '../../../../contract/errors/gateway-error.js';
import { readBody } from '../shared/read-body.js';
import { tokenEndpointError } from './errors.js';
import { SERVICE_ACCOUNT_PARAM, type ServiceAccount } from './service-account.js';

export const CLOUD_PLATFORM_SCOPE = 'https://www.googleapis.com/auth/cloud-platform';
const GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const ASSERTION_LIFETIME_S = 3600;
/** A token is renewed this long before it expires (or at half its life, if that is shorter). */
const RENEW_MARGIN_MS = 5 * 60 * 1000;
const EXCHANGE_TIMEOUT_MS = 30_000;
const MAX_CACHED = 1000;

export interface AccessTokenOptions {
  provider: string;
  /** Hosts a token_uri may name besides Google's own (*.googleapis.com over https). */
  tokenHosts?: string[];
}

interface Cached {
  token: string;
  renewAt: number;
}

export class AccessTokens {
  private readonly cache = new Map<string, Cached>();
  private readonly pending = new Map<string, Promise<string>>();
  private readonly extraHosts: Set<string>;

  constructor(private readonly options: AccessTokenOptions) {
    this.extraHosts = new Set((options.tokenHosts ?? []).map((h) => h.toLowerCase()));
  }

  /** A valid access token for the account (cached, or exchanged now). */
  get(account: ServiceAccount, signal?: AbortSignal): Promise<string> {
    this.checkTokenUri(account.token_uri);
    const key = cacheKey(account);
    const hit = this.cache.get(key);
    if (hit && hit.renewAt > Date.now()) return Promise.resolve(hit.token);
    let pending = this.pending.get(key);
    if (!pending) {
      pending = this.exchange(account)
        .then(({ token, expiresIn }) => {
          this.remember(key, token, expiresIn);
          return token;
        })
        .finally(() => this.pending.delete(key));
      // The exchange may outlive the callers that started it; its failure is theirs to see.
      pending.catch(() => undefined);
      this.pending.set(key, pending);
    }
    return signal ? untilAborted(pending, signal) : pending;
  }

  private remember(key: string, token: string, expiresInS: number): void {
    const lifeMs = expiresInS * 1000;
    this.cache.delete(key);
    if (this.cache.size >= MAX_CACHED) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(key, { token, renewAt: Date.now() + lifeMs - Math.min(RENEW_MARGIN_MS, lifeMs / 2) });
  }

  private checkTokenUri(uri: string): void {
    let url: URL;
    try {
      url = new URL(uri);
    } catch {
      throw badRequest(`${SERVICE_ACCOUNT_PARAM}: token_uri is not a URL.`, SERVICE_ACCOUNT_PARAM);
    }
    const host = url.host.toLowerCase();
    const google = url.protocol === 'https:' && (url.hostname === 'googleapis.com' || url.hostname.endsWith('.googleapis.com'));
    if (!google && !this.extraHosts.has(host) && !this.extraHosts.has(url.hostname.toLowerCase())) {
      throw badRequest(
        `${SERVICE_ACCOUNT_PARAM}: token_uri host ${host} is not allowed (Google's https://*.googleapis.com, or hosts listed in providers.${this.options.provider}.tokenHosts).`,
        SERVICE_ACCOUNT_PARAM,
      );
    }
  }

  private async exchange(account: ServiceAccount): Promise<{ token: string; expiresIn: number }> {
    const provider = this.options.provider;
    const assertion = await signGrant(account);
    let status: number;
    let body: Buffer;
    let headers: Record<string, string | string[] | undefined>;
    try {
      const res = await request(account.token_uri, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: new URLSearchParams({ grant_type: GRANT_TYPE, assertion }).toString(),
        headersTimeout: EXCHANGE_TIMEOUT_MS,
        bodyTimeout: EXCHANGE_TIMEOUT_MS,
      });
      status = res.statusCode;
      headers = res.headers;
      body = await readBody(res.body, 64 * 1024);
    } catch (err) {
      throw new GatewayError('provider_error', `Could not reach the service account token endpoint: ${(err as Error).message}.`, {
        provider,
        retryable: true,
        cause: err,
      });
    }
    if (status < 200 || status >= 300) throw tokenEndpointError(provider, status, body, headers);
    let parsed: { access_token?: unknown; expires_in?: unknown };
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      parsed = {};
    }
    if (typeof parsed.access_token !== 'string' || parsed.access_token === '') {
      throw new GatewayError('provider_error', 'The service account token endpoint answered without an access_token.', { provider, retryable: true });
    }
    const expiresIn = Number(parsed.expires_in);
    return { token: parsed.access_token, expiresIn: Number.isFinite(expiresIn) && expiresIn > 0 ? expiresIn : ASSERTION_LIFETIME_S };
  }
}

/** The signed JWT grant for the account. */
export async function signGrant(account: ServiceAccount, nowS = Math.floor(Date.now() / 1000)): Promise<string> {
  // jose is loaded when a service account is first used, not at start-up.
  const { importPKCS8, SignJWT } = await import('jose');
  let key: Awaited<ReturnType<typeof importPKCS8>>;
  try {
    key = await importPKCS8(account.private_key, 'RS256');
  } catch {
    throw badRequest(`${SERVICE_ACCOUNT_PARAM}: private_key is not a valid PKCS#8 RSA key.`, SERVICE_ACCOUNT_PARAM);
  }
  const header: { alg: 'RS256'; typ: 'JWT'; kid?: string } = { alg: 'RS256', typ: 'JWT' };
  if (account.private_key_id) header.kid = account.private_key_id;
  return new SignJWT({ scope: CLOUD_PLATFORM_SCOPE })
    .setProtectedHeader(header)
    .setIssuer(account.client_email)
    .setAudience(account.token_uri)
    .setIssuedAt(nowS)
    .setExpirationTime(nowS + ASSERTION_LIFETIME_S)
    .sign(key);
}

function cacheKey(account: ServiceAccount): string {
  return createHash('sha256').update(`${account.client_email}\n${account.token_uri}\n${account.private_key}`).digest('hex');
}

/** Waits for `promise` unless the caller's signal fires first. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}
