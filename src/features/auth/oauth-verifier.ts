import { request } from 'undici';
import type { createRemoteJWKSet, JWTPayload } from 'jose';
import type { Identity } from '../../kernel/engine/context.js';
import type { AuthConfig } from '../../generated/gateway.js';
import { GatewayError } from '../../contract/errors/gateway-error.js';
import type { Logger } from '../../kernel/observability/logger.js';
import { ALL_SCOPES, SCOPE_READ, SCOPE_WRITE } from './scopes.js';

/** Why a token was refused: `invalid` -> 401 invalid_token, `scope` -> 403 insufficient_scope. */
export class OAuthRejection extends Error {
  constructor(
    readonly kind: 'invalid' | 'scope',
    message: string,
    readonly missingScopes: string[] = [],
  ) {
    super(message);
  }
}

interface Discovered {
  issuer: string;
  jwks: ReturnType<typeof createRemoteJWKSet>;
}

const DISCOVERY_RETRY_MS = 5_000;
const CLOCK_TOLERANCE_S = 30;

const trimSlash = (s: string) => s.replace(/\/+$/, '');

function stringClaim(payload: JWTPayload, name: string): string | undefined {
  const v = payload[name];
  return typeof v === 'string' && v.trim() ? v.trim() : undefined;
}

function listClaim(payload: JWTPayload, name: string): string[] | undefined {
  const v = payload[name];
  if (Array.isArray(v)) return v.filter((x): x is string => typeof x === 'string' && x.trim() !== '');
  if (typeof v === 'string' && v.trim()) return v.split(/[\s,]+/).filter(Boolean);
  return undefined;
}

/** The scopes of an access token: `scope` (space-separated) or `scp` (list or string). */
export function tokenScopes(payload: JWTPayload): string[] {
  return listClaim(payload, 'scope') ?? listClaim(payload, 'scp') ?? [];
}

/**
 * Verifies OAuth 2.0 / OIDC access tokens (JWTs) against the issuer's published keys: discovery
 * from `<issuer>/.well-known/openid-configuration`, keys from its jwks_uri (cached and refreshed
 * on an unknown key id by jose), then signature, issuer, audience, expiry and auth.scopes.
 */
export class OAuthVerifier {
  private discovered?: Discovered;
  private pending?: Promise<Discovered>;
  private failedAt = 0;

  constructor(
    private readonly auth: AuthConfig,
    private readonly logger: Logger,
  ) {}

  get ready(): boolean {
    return this.discovered !== undefined;
  }

  /** Reads the discovery document once (again after a failure, at most every few seconds). */
  async discover(): Promise<Discovered> {
    if (this.discovered) return this.discovered;
    if (this.pending) return this.pending;
    if (Date.now() - this.failedAt < DISCOVERY_RETRY_MS && this.failedAt > 0) {
      throw new GatewayError('service_unavailable', 'The identity provider could not be reached; try again shortly.');
    }
    this.pending = this.load()
      .then((d) => {
        this.discovered = d;
        return d;
      })
      .catch((err) => {
        this.failedAt = Date.now();
        this.logger.warn({ issuer: this.auth.issuer, err: (err as Error).message }, 'OIDC discovery failed');
        throw new GatewayError('service_unavailable', 'The identity provider could not be reached; try again shortly.');
      })
      .finally(() => {
        this.pending = undefined;
      });
    return this.pending;
  }

  private async load(): Promise<Discovered> {
    const issuer = trimSlash(this.auth.issuer!);
    const res = await request(`${issuer}/.well-known/openid-configuration`, { method: 'GET', headersTimeout: 10_000, bodyTimeout: 10_000 });
    if (res.statusCode !== 200) {
      await res.body.dump();
      throw new Error(`discovery document answered ${res.statusCode}`);
    }
    const doc = (await res.body.json()) as { issuer?: string; jwks_uri?: string };
    if (typeof doc.jwks_uri !== 'string') throw new Error('discovery document has no jwks_uri');
    if (typeof doc.issuer !== 'string' || trimSlash(doc.issuer) !== issuer) throw new Error(`discovery document names issuer ${doc.issuer}, not ${issuer}`);
    // jose is loaded when a gateway uses OAuth, not at start-up.
    const { createRemoteJWKSet } = await import('jose');
    return { issuer: doc.issuer, jwks: createRemoteJWKSet(new URL(doc.jwks_uri)) };
  }

  /** The identity of a valid token; throws OAuthRejection (401/403) or a 503 GatewayError. */
  async verify(token: string, audiences: string[]): Promise<Identity> {
    const { issuer, jwks } = await this.discover();
    const { jwtVerify } = await import('jose');
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, jwks, { issuer, audience: audiences, clockTolerance: CLOCK_TOLERANCE_S }));
    } catch (err) {
      throw this.rejection(err);
    }
    const scopes = tokenScopes(payload);
    const missing = (this.auth.scopes ?? []).filter((s) => !scopes.includes(s));
    if (missing.length) throw new OAuthRejection('scope', `The token lacks the scope${missing.length > 1 ? 's' : ''} ${missing.join(', ')}.`, missing);
    return this.identity(payload, issuer, scopes);
  }

  private rejection(err: unknown): Error {
    const code = (err as { code?: string }).code ?? '';
    const claim = (err as { claim?: string }).claim;
    switch (code) {
      case 'ERR_JWT_EXPIRED':
        return new OAuthRejection('invalid', 'The access token has expired.');
      case 'ERR_JWT_CLAIM_VALIDATION_FAILED':
        if (claim === 'iss') return new OAuthRejection('invalid', 'The access token was issued by another issuer.');
        if (claim === 'aud') return new OAuthRejection('invalid', 'The access token is meant for another audience.');
        return new OAuthRejection('invalid', `The access token's ${claim ?? 'claims'} claim is not valid.`);
      case 'ERR_JWKS_NO_MATCHING_KEY':
      case 'ERR_JWKS_MULTIPLE_MATCHING_KEYS':
      case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
        return new OAuthRejection('invalid', 'The access token is not signed by a key of the issuer.');
      case 'ERR_JWS_INVALID':
      case 'ERR_JWT_INVALID':
      case 'ERR_JOSE_NOT_SUPPORTED':
      case 'ERR_JOSE_ALG_NOT_ALLOWED':
        return new OAuthRejection('invalid', 'The access token is not a valid signed JWT.');
      default:
        this.logger.warn({ issuer: this.auth.issuer, err: (err as Error).message }, 'could not verify an access token');
        return new GatewayError('service_unavailable', "The identity provider's keys could not be read; try again shortly.");
    }
  }

  private identity(payload: JWTPayload, issuer: string, scopes: string[]): Identity {
    return identityFromClaims(payload, issuer, scopes, this.auth.claims ?? {});
  }
}

/** The identity a token's (or an id_token's) claims carry; `names` renames the claims read. */
export function identityFromClaims(payload: JWTPayload, issuer: string, scopes: string[], names: NonNullable<AuthConfig['claims']>): Identity {
  const mcpScopes = scopes.filter((s) => s === SCOPE_READ || s === SCOPE_WRITE);
  return {
    kind: 'oauth',
    id: `${issuer}#${payload.sub ?? ''}`,
    user: payload.sub,
    email: stringClaim(payload, names.email ?? 'email'),
    name: stringClaim(payload, names.name ?? 'name'),
    team: stringClaim(payload, names.team ?? 'team') ?? listClaim(payload, 'groups')?.[0],
    roles: listClaim(payload, names.roles ?? 'roles'),
    organization: stringClaim(payload, names.organization ?? 'org_id'),
    // A token that carries no mcp:* scope is not narrowed by scope (the issuer, audience and
    // auth.scopes already decided it may use this gateway); one that does gets exactly those.
    scopes: mcpScopes.length ? mcpScopes : [...ALL_SCOPES],
  };
}
