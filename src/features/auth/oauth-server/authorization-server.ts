import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { JWTPayload } from 'jose';
import type { AuthConfig, GatewayConfig, OAuthServerConfig } from '../../../generated/gateway.js';
import type { GatewayContext, Identity } from '../../../kernel/engine/context.js';
import { headerValue } from '../../../kernel/engine/context.js';
import { readRequestBytes } from '../../../kernel/engine/request-body.js';
import type { Logger } from '../../../kernel/observability/logger.js';
import { badRequest, forbidden, GatewayError } from '../../../contract/errors/gateway-error.js';
import { OAuthRejection } from '../oauth-verifier.js';
import { publicBaseUrl } from '../public-url.js';
import { insecureTransportError } from '../transport-security.js';
import { ALL_SCOPES, SCOPE_READ, SCOPE_WRITE } from '../scopes.js';
import { hashSecret, parseLifetime } from '../secrets.js';
import { checkGatewayCredential, type CredentialCheck } from '../gateway-credentials.js';
import type { ConfigKeys } from '../config-keys.js';
import type { TokenService } from '../token-service.js';
import type { OAuthServerStore } from './as-store.js';
import { ClientRejection, OAuthClients, type OAuthClient } from './clients.js';
import { LoginThrottle } from './login-throttle.js';
import { OAuthError } from './oauth-error.js';
import { OidcLogin, type OidcAttempt } from './oidc-login.js';
import { consentPage, loginPage, PAGE_HEADERS } from './pages.js';
import type { SigningKeys } from './signing-keys.js';

/** An authorization under way: from /oauth/authorize through login to consent. */
interface Pending {
  clientId: string;
  clientName: string;
  redirectUri: string;
  state?: string;
  codeChallenge: string;
  /** Scopes asked for (known ones), or every supported scope when none were. */
  scopes: string[];
  resource: string;
  /** SHA-256 of the browser-binding cookie. */
  cookie: string;
  csrf: string;
  identity?: Identity;
  granted?: string[];
  oidc?: OidcAttempt;
}

/** What a code and a refresh token stand for. */
interface Grant {
  clientId: string;
  identity: Identity;
  scopes: string[];
  resource: string;
  redirectUri?: string;
  codeChallenge?: string;
}

const COOKIE = 'gw_oauth';
/** The routes that carry a key, a code or a token. */
const CARRIES_CREDENTIALS = new Set(['oauth.login', 'oauth.callback', 'oauth.consent', 'oauth.token', 'oauth.revoke', 'oauth.register']);
const FORM_LIMIT = 16 * 1024;
/** Scopes clients commonly ask for that mean nothing here: ignored, not refused. */
const IGNORED_SCOPES = new Set(['openid', 'offline_access', 'profile', 'email']);
const SERVER_NAME = /^[A-Za-z0-9_-]+$/;
const PKCE_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
const PKCE_VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

const nowSeconds = () => Math.floor(Date.now() / 1000);
const random = (bytes = 32) => randomBytes(bytes).toString('base64url');
const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function cookieValue(ctx: GatewayContext, name: string): string | undefined {
  const header = headerValue(ctx.headers, 'cookie');
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** One value of a form or query parameter; a repeated one is refused (RFC 6749 §3.1). */
function single(params: URLSearchParams, name: string, fail: (message: string) => Error): string | undefined {
  const all = params.getAll(name);
  if (all.length > 1) throw fail(`The ${name} parameter is given more than once.`);
  const v = all[0];
  return v === undefined || v === '' ? undefined : v;
}

export interface AuthorizationServerEnv {
  config: GatewayConfig;
  store: OAuthServerStore;
  key: SigningKeys;
  tokens: TokenService;
  keys: ConfigKeys;
  logger: Logger;
}

/**
 * The gateway as OAuth 2.1 authorization server for /mcp: RFC 8414 metadata, the authorization
 * code flow with PKCE S256 (login with a gateway key or through the upstream OpenID provider,
 * then consent), client id metadata documents and RFC 7591 registration, audience-bound JWT
 * access tokens (RFC 8707), rotating refresh tokens with reuse detection, and RFC 7009 revocation.
 */
export class AuthorizationServer {
  readonly clients: OAuthClients;
  private readonly settings: OAuthServerConfig;
  private readonly auth: AuthConfig;
  private readonly accessLifetime: number;
  private readonly refreshLifetime: number;
  private readonly codeLifetime: number;
  private readonly loginLifetime: number;
  private readonly gatewayKeyLogin: boolean;
  private readonly oidc?: OidcLogin;
  private readonly supportedScopes: string[];
  private readonly throttle: LoginThrottle;
  private sweeper?: NodeJS.Timeout;

  constructor(private readonly env: AuthorizationServerEnv) {
    this.auth = env.config.auth ?? {};
    this.settings = this.auth.oauth ?? {};
    this.accessLifetime = parseLifetime(this.settings.accessTokenLifetime ?? '10m');
    this.refreshLifetime = parseLifetime(this.settings.refreshTokenLifetime ?? '30d');
    this.codeLifetime = parseLifetime(this.settings.codeLifetime ?? '60s');
    this.loginLifetime = parseLifetime(this.settings.loginLifetime ?? '10m');
    const zero = (['accessTokenLifetime', 'refreshTokenLifetime', 'codeLifetime', 'loginLifetime'] as const).find(
      (k) => this.settings[k] !== undefined && parseLifetime(this.settings[k]!) < 1,
    );
    if (zero) throw new Error(`auth.oauth.${zero}: must be at least 1s`);
    const login = this.settings.login ?? (this.auth.issuer && this.auth.clientId && this.auth.clientSecret ? ['gateway-key', 'oidc'] : ['gateway-key']);
    this.gatewayKeyLogin = login.includes('gateway-key');
    if (login.includes('oidc')) this.oidc = new OidcLogin(this.auth, env.logger);
    this.supportedScopes = [...new Set([...ALL_SCOPES, ...(this.auth.scopes ?? [])])];
    const attempts = this.settings.loginAttempts ?? {};
    this.throttle = new LoginThrottle(env.store, attempts.max ?? 10, Math.max(1, parseLifetime(attempts.window ?? '15m')));
    this.clients = new OAuthClients(env.store, parseLifetime(this.settings.clientMetadataTtl ?? '5m'), this.settings.allowInsecureClientMetadata === true, env.logger);
  }

  /** Starts the sweep of expired rows (every ten minutes). */
  start(): void {
    this.sweeper = setInterval(() => void this.env.store.sweep(nowSeconds()).catch(() => undefined), 600_000);
    this.sweeper.unref();
  }

  async close(): Promise<void> {
    if (this.sweeper) clearInterval(this.sweeper);
    await this.clients.close();
  }

  /** The RFC 8414 authorization-server metadata. */
  metadata(base: string): Record<string, unknown> {
    const doc: Record<string, unknown> = {
      issuer: base,
      authorization_endpoint: `${base}/oauth/authorize`,
      token_endpoint: `${base}/oauth/token`,
      revocation_endpoint: `${base}/oauth/revoke`,
      jwks_uri: `${base}/oauth/jwks`,
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none'],
      revocation_endpoint_auth_methods_supported: ['none'],
      scopes_supported: this.supportedScopes,
      client_id_metadata_document_supported: true,
      authorization_response_iss_parameter_supported: true,
    };
    if (this.settings.dynamicRegistration !== false) doc.registration_endpoint = `${base}/oauth/register`;
    return doc;
  }

  jwks(): unknown {
    return this.env.key.jwks;
  }

  /** Serves one of the authorization server's routes (by the route's operation). */
  async serve(ctx: GatewayContext, operation: string): Promise<void> {
    const base = publicBaseUrl(ctx.req, this.env.config);
    // Keys, codes and tokens travel over TLS (plain HTTP on loopback only, unless server.allowInsecureHttp).
    if (CARRIES_CREDENTIALS.has(operation)) {
      const insecure = insecureTransportError(ctx.req, this.env.config);
      if (insecure)
        throw operation === 'oauth.token' || operation === 'oauth.revoke' || operation === 'oauth.register' ? new OAuthError('invalid_request', insecure.message) : insecure;
    }
    switch (operation) {
      case 'oauth.authorization_server':
        return this.json(ctx, 200, this.metadata(base), { 'cache-control': 'public, max-age=300' });
      case 'oauth.jwks':
        return this.json(ctx, 200, this.jwks(), { 'cache-control': 'public, max-age=300' });
      case 'oauth.authorize':
        return this.authorize(ctx, base);
      case 'oauth.login':
        return this.login(ctx, base);
      case 'oauth.callback':
        return this.callback(ctx, base);
      case 'oauth.consent':
        return this.consent(ctx, base);
      case 'oauth.token':
        return this.token(ctx, base);
      case 'oauth.revoke':
        return this.revoke(ctx, base);
      case 'oauth.register':
        return this.register(ctx);
      default:
        throw new GatewayError('not_found', `No route ${ctx.method} ${ctx.path}.`);
    }
  }

  private json(ctx: GatewayContext, status: number, body: unknown, headers: Record<string, string> = {}): void {
    ctx.response = { kind: 'json', status, body, headers };
  }

  private html(ctx: GatewayContext, status: number, text: string, headers: Record<string, string> = {}): void {
    ctx.response = { kind: 'binary', status, contentType: 'text/html; charset=utf-8', body: Buffer.from(text, 'utf8'), headers: { ...PAGE_HEADERS, ...headers } };
  }

  private redirect(ctx: GatewayContext, location: string, headers: Record<string, string> = {}): void {
    ctx.response = { kind: 'empty', status: 302, headers: { location, 'cache-control': 'no-store', ...headers } };
  }

  /** Back to the client's redirect URI with `params` (the state and the issuer added, RFC 9207). */
  private backToClient(ctx: GatewayContext, base: string, redirectUri: string, state: string | undefined, params: Record<string, string>): void {
    const url = new URL(redirectUri);
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
    if (state !== undefined) url.searchParams.set('state', state);
    url.searchParams.set('iss', base);
    this.redirect(ctx, url.href);
  }

  private async form(ctx: GatewayContext, oauth: boolean): Promise<URLSearchParams> {
    const type = headerValue(ctx.headers, 'content-type') ?? '';
    const fail = (m: string) => (oauth ? new OAuthError('invalid_request', m) : badRequest(m, 'body'));
    if (!/^application\/x-www-form-urlencoded\s*(;|$)/i.test(type)) throw fail('The request body must be application/x-www-form-urlencoded.');
    let raw: Buffer;
    try {
      raw = await readRequestBytes(ctx.req, FORM_LIMIT);
    } catch {
      throw fail(`The request body must be at most ${FORM_LIMIT} bytes.`);
    }
    return new URLSearchParams(raw.toString('utf8'));
  }

  private resourceProblem(resource: string, base: string): string | undefined {
    if (resource === `${base}/mcp`) return undefined;
    const prefix = `${base}/mcp/`;
    if (resource.startsWith(prefix) && SERVER_NAME.test(resource.slice(prefix.length))) return undefined;
    return `The resource must be this gateway's tool-server endpoint (${base}/mcp or ${base}/mcp/<server>).`;
  }

  // ---- /oauth/authorize ----------------------------------------------------------------------

  private async authorize(ctx: GatewayContext, base: string): Promise<void> {
    const q = ctx.query;
    const fail = (m: string) => badRequest(m);
    const clientId = single(q, 'client_id', fail);
    if (!clientId) throw badRequest('The client_id parameter is required.', 'client_id');
    let client: OAuthClient;
    try {
      client = await this.clients.resolve(clientId);
    } catch (err) {
      if (err instanceof ClientRejection) throw badRequest(err.message, 'client_id');
      throw err;
    }
    const asked = single(q, 'redirect_uri', fail);
    let redirectUri: string;
    if (asked === undefined) {
      if (client.redirectUris.length !== 1) throw badRequest('The redirect_uri parameter is required (the client registered more than one).', 'redirect_uri');
      redirectUri = client.redirectUris[0]!;
    } else if (client.redirectUris.includes(asked)) redirectUri = asked;
    else throw badRequest('The redirect_uri is not one the client registered (it must match exactly).', 'redirect_uri');
    // From here on, errors go back to the client.
    const state = single(q, 'state', fail);
    const back = (error: string, description: string) => this.backToClient(ctx, base, redirectUri, state, { error, error_description: description });
    let resource: string;
    let scopes: string[];
    let challenge: string;
    try {
      if (single(q, 'response_type', fail) !== 'code') return back('unsupported_response_type', 'Only response_type code is supported.');
      const method = single(q, 'code_challenge_method', fail);
      challenge = single(q, 'code_challenge', fail) ?? '';
      if (!challenge) return back('invalid_request', 'PKCE is required: send code_challenge with code_challenge_method S256.');
      if (method !== 'S256') return back('invalid_request', 'Only the PKCE code_challenge_method S256 is supported (plain is not).');
      if (!PKCE_CHALLENGE.test(challenge)) return back('invalid_request', 'The code_challenge is not a base64url SHA-256 digest (43 characters).');
      const resources = q.getAll('resource');
      if (resources.length > 1) return back('invalid_target', 'Only one resource may be asked for.');
      resource = resources[0] || `${base}/mcp`;
      const problem = this.resourceProblem(resource, base);
      if (problem) return back('invalid_target', problem);
      const asked = (single(q, 'scope', fail) ?? '').split(' ').filter(Boolean);
      const unknown = asked.filter((s) => !IGNORED_SCOPES.has(s) && !this.supportedScopes.includes(s));
      if (unknown.length) return back('invalid_scope', `Unknown scope${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}.`);
      scopes = asked.filter((s) => this.supportedScopes.includes(s));
      if (scopes.length === 0) scopes = [...this.supportedScopes];
    } catch (err) {
      if (err instanceof GatewayError) return back('invalid_request', err.message);
      throw err;
    }
    const id = `gwp_${random()}`;
    const cookie = random();
    const pending: Pending = {
      clientId,
      clientName: client.clientName ?? (OAuthClients.isMetadataUrl(clientId) ? new URL(clientId).host : clientId),
      redirectUri,
      state,
      codeChallenge: challenge,
      scopes,
      resource,
      cookie: hashSecret(cookie),
      csrf: random(24),
    };
    await this.env.store.savePending(hashSecret(id), pending, nowSeconds() + this.loginLifetime);
    this.html(ctx, 200, this.loginHtml(id, pending), { 'set-cookie': this.cookieHeader(base, cookie) });
  }

  private cookieHeader(base: string, value: string): string {
    const secure = base.startsWith('https://') ? '; Secure' : '';
    return `${COOKIE}=${value}; Path=/oauth; HttpOnly; SameSite=Lax; Max-Age=${this.loginLifetime}${secure}`;
  }

  private loginHtml(id: string, pending: Pending, error?: string): string {
    return loginPage({ request: id, csrf: pending.csrf, clientName: pending.clientName, gatewayKey: this.gatewayKeyLogin, oidc: this.oidc?.name, error });
  }

  /** The pending authorization a form names, checked against the browser's cookie (and the form's CSRF token). */
  private async pending(ctx: GatewayContext, id: string | undefined, csrf: string | undefined | false): Promise<Pending> {
    if (!id || !/^gwp_[A-Za-z0-9_-]{20,80}$/.test(id)) throw badRequest('The authorization request is missing; start again from the application.', 'request');
    const data = await this.env.store.pending(hashSecret(id), nowSeconds());
    if (!data) throw badRequest('The authorization request has expired or is unknown; start again from the application.', 'request');
    const pending = JSON.parse(data) as Pending;
    const cookie = cookieValue(ctx, COOKIE);
    if (!cookie || !sameText(hashSecret(cookie), pending.cookie))
      throw forbidden('This authorization was started in another browser (its cookie is missing); start again from the application.');
    if (csrf !== false && (!csrf || !sameText(csrf, pending.csrf))) throw forbidden('The form is not the one this gateway served (CSRF token).');
    return pending;
  }

  // ---- login and consent ---------------------------------------------------------------------

  private async login(ctx: GatewayContext, base: string): Promise<void> {
    // A client address past its failed logins is refused before anything is checked (auth.oauth.loginAttempts).
    const address = ctx.req.socket.remoteAddress;
    await this.throttle.check(address, nowSeconds());
    const form = await this.form(ctx, false);
    const fail = (m: string) => badRequest(m);
    const id = single(form, 'request', fail);
    const pending = await this.pending(ctx, id, single(form, 'csrf', fail));
    const method = single(form, 'method', fail) ?? 'gateway-key';
    if (method === 'oidc') {
      if (!this.oidc) throw badRequest('Login through the identity provider is not enabled (auth.oauth.login).', 'method');
      const { location, attempt } = await this.oidc.start(id!, `${base}/oauth/callback`);
      pending.oidc = attempt;
      await this.env.store.savePending(hashSecret(id!), pending, nowSeconds() + this.loginLifetime);
      return this.redirect(ctx, location);
    }
    if (method !== 'gateway-key' || !this.gatewayKeyLogin) throw badRequest('Login with a gateway key is not enabled (auth.oauth.login).', 'method');
    const key = single(form, 'key', fail)?.trim();
    if (key) ctx.secrets.push(key);
    const result: CredentialCheck = key ? await checkGatewayCredential(key, this.env.tokens, this.env.keys) : { ok: false, message: 'Enter a gateway key.' };
    if (!result.ok) {
      await this.throttle.failed(address, nowSeconds());
      return this.html(ctx, result.blocked ? 403 : 401, this.loginHtml(id!, pending, result.message));
    }
    await this.loggedIn(ctx, id!, pending, result.identity);
  }

  private async callback(ctx: GatewayContext, base: string): Promise<void> {
    const q = ctx.query;
    const fail = (m: string) => badRequest(m);
    const id = single(q, 'state', fail);
    const pending = await this.pending(ctx, id, false);
    if (!pending.oidc || !this.oidc) throw badRequest('This authorization did not go to the identity provider.', 'state');
    const attempt = pending.oidc;
    pending.oidc = undefined;
    const error = single(q, 'error', fail);
    if (error) {
      await this.env.store.takePending(hashSecret(id!));
      return this.backToClient(ctx, base, pending.redirectUri, pending.state, { error: 'access_denied', error_description: 'The identity provider did not log the user in.' });
    }
    const code = single(q, 'code', fail);
    if (!code) throw badRequest('The identity provider sent no code.', 'code');
    ctx.secrets.push(code);
    const identity = await this.oidc.finish(code, attempt, `${base}/oauth/callback`);
    await this.loggedIn(ctx, id!, pending, identity);
  }

  /** The user is known: the scopes they may grant are settled and the consent page is shown. */
  private async loggedIn(ctx: GatewayContext, id: string, pending: Pending, identity: Identity): Promise<void> {
    const held = identity.scopes ?? [...ALL_SCOPES];
    pending.identity = identity;
    pending.granted = pending.scopes.filter((s) => (s !== SCOPE_READ && s !== SCOPE_WRITE) || held.includes(s));
    await this.env.store.savePending(hashSecret(id), pending, nowSeconds() + this.loginLifetime);
    this.html(
      ctx,
      200,
      consentPage({
        request: id,
        csrf: pending.csrf,
        clientName: pending.clientName,
        clientId: pending.clientId,
        user: identity.email ?? identity.name ?? identity.user ?? identity.id,
        scopes: pending.granted,
        resource: pending.resource,
        redirectHost: new URL(pending.redirectUri).origin,
      }),
    );
  }

  private async consent(ctx: GatewayContext, base: string): Promise<void> {
    const form = await this.form(ctx, false);
    const fail = (m: string) => badRequest(m);
    const id = single(form, 'request', fail);
    const pending = await this.pending(ctx, id, single(form, 'csrf', fail));
    if (!pending.identity || !pending.granted) throw badRequest('Log in before giving consent.', 'request');
    const decision = single(form, 'decision', fail);
    if (decision !== 'approve' && decision !== 'deny') throw badRequest('decision must be approve or deny.', 'decision');
    // One answer per authorization: a second submit finds nothing.
    if (!(await this.env.store.takePending(hashSecret(id!)))) throw badRequest('The authorization request has already been answered.', 'request');
    const clear = { 'set-cookie': `${COOKIE}=; Path=/oauth; HttpOnly; SameSite=Lax; Max-Age=0` };
    if (decision === 'deny') {
      this.backToClient(ctx, base, pending.redirectUri, pending.state, { error: 'access_denied', error_description: 'The user denied the request.' });
      Object.assign((ctx.response as { headers: Record<string, string> }).headers, clear);
      return;
    }
    const code = random();
    const grant: Grant = {
      clientId: pending.clientId,
      identity: pending.identity,
      scopes: pending.granted,
      resource: pending.resource,
      redirectUri: pending.redirectUri,
      codeChallenge: pending.codeChallenge,
    };
    await this.env.store.saveCode(hashSecret(code), `fam_${random(16)}`, grant, nowSeconds() + this.codeLifetime);
    this.backToClient(ctx, base, pending.redirectUri, pending.state, { code });
    Object.assign((ctx.response as { headers: Record<string, string> }).headers, clear);
  }

  // ---- /oauth/token --------------------------------------------------------------------------

  /** The client of a token or revocation request (public clients: client_id in the form or as Basic user). */
  private clientOf(ctx: GatewayContext, form: URLSearchParams): string {
    const fail = (m: string) => new OAuthError('invalid_request', m);
    let clientId = single(form, 'client_id', fail);
    const basic = /^Basic\s+(\S+)$/i.exec(headerValue(ctx.headers, 'authorization') ?? '');
    if (basic) {
      let user: string;
      try {
        user = decodeURIComponent(Buffer.from(basic[1]!, 'base64').toString('utf8').split(':')[0] ?? '');
      } catch {
        throw new OAuthError('invalid_client', 'The Basic credentials are not valid.');
      }
      if (clientId && clientId !== user) throw new OAuthError('invalid_client', 'The client_id and the Basic credentials name different clients.');
      clientId = user;
    }
    if (!clientId) throw new OAuthError('invalid_client', 'The client_id parameter is required (public clients identify themselves with it).');
    return clientId;
  }

  private async token(ctx: GatewayContext, base: string): Promise<void> {
    const form = await this.form(ctx, true);
    const fail = (m: string) => new OAuthError('invalid_request', m);
    const grantType = single(form, 'grant_type', fail);
    if (!grantType) throw new OAuthError('invalid_request', 'The grant_type parameter is required.');
    if (grantType !== 'authorization_code' && grantType !== 'refresh_token') throw new OAuthError('unsupported_grant_type', `The grant type ${grantType} is not supported.`);
    const clientId = this.clientOf(ctx, form);
    const now = nowSeconds();
    const resource = single(form, 'resource', fail);
    if (grantType === 'authorization_code') {
      const code = single(form, 'code', fail);
      const verifier = single(form, 'code_verifier', fail);
      const redirectUri = single(form, 'redirect_uri', fail);
      if (!code) throw new OAuthError('invalid_request', 'The code parameter is required.');
      ctx.secrets.push(code);
      if (!verifier) throw new OAuthError('invalid_request', 'The code_verifier parameter is required (PKCE).');
      ctx.secrets.push(verifier);
      if (!PKCE_VERIFIER.test(verifier)) throw new OAuthError('invalid_request', 'The code_verifier must be 43 to 128 characters of A-Z, a-z, 0-9, "-", ".", "_", "~".');
      const codeHash = hashSecret(code);
      const row = await this.env.store.code(codeHash);
      if (!row) throw new OAuthError('invalid_grant', 'The authorization code is not valid.');
      const grant = JSON.parse(row.data) as Grant;
      if (row.usedAt !== null) {
        // A code used twice: whatever the first use got is revoked (RFC 6749 §4.1.2).
        await this.env.store.revokeFamily(row.familyId, now);
        throw new OAuthError('invalid_grant', 'The authorization code has already been used; the tokens issued for it are revoked.');
      }
      if (row.expiresAt <= now) throw new OAuthError('invalid_grant', 'The authorization code has expired.');
      if (grant.clientId !== clientId) throw new OAuthError('invalid_grant', 'The authorization code was issued to another client.');
      if (redirectUri !== grant.redirectUri) throw new OAuthError('invalid_grant', 'The redirect_uri is not the one of the authorization request.');
      if (!sameText(s256(verifier), grant.codeChallenge!)) throw new OAuthError('invalid_grant', 'The code_verifier does not match the code_challenge.');
      if (resource !== undefined && resource !== grant.resource) throw new OAuthError('invalid_target', 'The resource is not the one the code was issued for.');
      if (!(await this.env.store.useCode(codeHash, now))) {
        await this.env.store.revokeFamily(row.familyId, now);
        throw new OAuthError('invalid_grant', 'The authorization code has already been used; the tokens issued for it are revoked.');
      }
      await this.env.store.createFamily(row.familyId, clientId, now, now + this.refreshLifetime);
      return this.issue(ctx, base, row.familyId, { clientId, identity: grant.identity, scopes: grant.scopes, resource: grant.resource }, now);
    }
    const refresh = single(form, 'refresh_token', fail);
    if (!refresh) throw new OAuthError('invalid_request', 'The refresh_token parameter is required.');
    ctx.secrets.push(refresh);
    const tokenHash = hashSecret(refresh);
    const row = await this.env.store.refresh(tokenHash);
    if (!row) throw new OAuthError('invalid_grant', 'The refresh token is not valid.');
    if (row.clientId !== clientId) throw new OAuthError('invalid_grant', 'The refresh token was issued to another client.');
    if (row.familyRevokedAt !== null) throw new OAuthError('invalid_grant', 'The refresh token has been revoked.');
    if (row.familyExpiresAt <= now) throw new OAuthError('invalid_grant', 'The refresh token has expired.');
    if (row.usedAt !== null || !(await this.env.store.useRefresh(tokenHash, now))) {
      // A rotated refresh token came back: someone holds a copy. The whole family is revoked.
      await this.env.store.revokeFamily(row.familyId, now);
      this.env.logger.warn({ clientId, family: row.familyId }, 'a rotated refresh token was used again: its family is revoked');
      throw new OAuthError('invalid_grant', 'The refresh token has already been used; every token of this grant is revoked.');
    }
    const grant = JSON.parse(row.data) as Grant;
    // A grant made with an issued gateway token ends when that token is revoked, expires or is blocked.
    if (grant.identity.kind === 'token' && !(await this.env.tokens.usable(grant.identity.id))) {
      await this.env.store.revokeFamily(row.familyId, now);
      throw new OAuthError('invalid_grant', 'The gateway key this grant was made with is no longer valid.');
    }
    if (resource !== undefined && resource !== grant.resource) throw new OAuthError('invalid_target', 'The resource is not the one the grant was issued for.');
    let scopes = grant.scopes;
    const asked = single(form, 'scope', fail);
    if (asked) {
      const wanted = asked.split(' ').filter((s) => s && !IGNORED_SCOPES.has(s));
      const extra = wanted.filter((s) => !grant.scopes.includes(s));
      if (extra.length) throw new OAuthError('invalid_scope', `The grant does not hold ${extra.join(', ')}.`);
      scopes = wanted;
    }
    return this.issue(ctx, base, row.familyId, { ...grant, clientId, scopes }, now);
  }

  private async issue(ctx: GatewayContext, base: string, familyId: string, grant: Grant, now: number): Promise<void> {
    const { identity } = grant;
    const claims: JWTPayload = {
      sub: identity.user ?? identity.id,
      client_id: grant.clientId,
      scope: grant.scopes.join(' '),
      fam: familyId,
    };
    if (identity.email) claims.email = identity.email;
    if (identity.name) claims.name = identity.name;
    if (identity.team) claims.team = identity.team;
    if (identity.roles?.length) claims.roles = identity.roles;
    if (identity.organization) claims.org_id = identity.organization;
    if (identity.permissions) claims.permissions = identity.permissions;
    const access = await this.env.key.sign(claims, base, grant.resource, this.accessLifetime);
    const refresh = `gwr_${random()}`;
    await this.env.store.saveRefresh(
      hashSecret(refresh),
      familyId,
      grant.clientId,
      { clientId: grant.clientId, identity, scopes: grant.scopes, resource: grant.resource } satisfies Grant,
      now,
    );
    // Not in ctx.secrets: the answer would mask them. The request log line holds no body.
    this.json(
      ctx,
      200,
      { access_token: access.token, token_type: 'Bearer', expires_in: this.accessLifetime, refresh_token: refresh, scope: grant.scopes.join(' ') },
      { 'cache-control': 'no-store', pragma: 'no-cache' },
    );
  }

  // ---- /oauth/revoke and /oauth/register -----------------------------------------------------

  private async revoke(ctx: GatewayContext, base: string): Promise<void> {
    const form = await this.form(ctx, true);
    const fail = (m: string) => new OAuthError('invalid_request', m);
    const token = single(form, 'token', fail);
    if (!token) throw new OAuthError('invalid_request', 'The token parameter is required.');
    ctx.secrets.push(token);
    const clientId = this.clientOf(ctx, form);
    const now = nowSeconds();
    const row = token.startsWith('gwr_') ? await this.env.store.refresh(hashSecret(token)) : undefined;
    if (row) {
      if (row.clientId !== clientId) throw new OAuthError('invalid_client', 'The token was issued to another client.');
      await this.env.store.revokeFamily(row.familyId, now);
    } else {
      const payload = await this.readOwnToken(token, base);
      if (payload) {
        if (payload.client_id !== clientId) throw new OAuthError('invalid_client', 'The token was issued to another client.');
        await this.env.store.revokeAccessToken(String(payload.jti), Number(payload.exp));
      }
    }
    // RFC 7009 §2.2: 200 whether or not the token was known.
    ctx.response = { kind: 'empty', status: 200, headers: { 'cache-control': 'no-store' } };
  }

  /** The claims of an access token this gateway signed (expired ones included); undefined for anything else. */
  private async readOwnToken(token: string, issuer: string): Promise<JWTPayload | undefined> {
    const { compactVerify } = await import('jose');
    try {
      // The signature only: an expired token may be revoked too (it is refused anyway).
      const { payload: bytes } = await compactVerify(token, this.env.key.verificationKey, { algorithms: this.env.key.algorithms });
      const payload = JSON.parse(Buffer.from(bytes).toString('utf8')) as JWTPayload;
      return payload.iss === issuer && typeof payload.jti === 'string' && typeof payload.exp === 'number' ? payload : undefined;
    } catch {
      return undefined;
    }
  }

  private async register(ctx: GatewayContext): Promise<void> {
    if (this.settings.dynamicRegistration === false) throw new GatewayError('not_found', `No route ${ctx.method} ${ctx.path}.`);
    const type = headerValue(ctx.headers, 'content-type') ?? '';
    if (!/^application\/json\s*(;|$)/i.test(type)) throw new OAuthError('invalid_client_metadata', 'The registration request must be application/json.');
    let body: unknown;
    try {
      body = JSON.parse((await readRequestBytes(ctx.req, FORM_LIMIT)).toString('utf8'));
    } catch {
      throw new OAuthError('invalid_client_metadata', `The registration request must be a JSON object of at most ${FORM_LIMIT} bytes.`);
    }
    this.json(ctx, 201, await this.clients.register(body, nowSeconds()), { 'cache-control': 'no-store' });
  }

  // ---- /mcp ----------------------------------------------------------------------------------

  /** The identity of an access token this gateway issued, for one of `audiences`; throws OAuthRejection. */
  async verifyAccessToken(token: string, audiences: string[], issuer: string): Promise<Identity> {
    const { jwtVerify } = await import('jose');
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.env.key.verificationKey, { issuer, audience: audiences, algorithms: this.env.key.algorithms, typ: 'at+jwt', clockTolerance: 5 }));
    } catch (err) {
      const code = (err as { code?: string }).code;
      const claim = (err as { claim?: string }).claim;
      if (code === 'ERR_JWT_EXPIRED') throw new OAuthRejection('invalid', 'The access token has expired.');
      if (code === 'ERR_JWT_CLAIM_VALIDATION_FAILED' && claim === 'aud') throw new OAuthRejection('invalid', 'The access token is meant for another audience.');
      if (code === 'ERR_JWT_CLAIM_VALIDATION_FAILED' && claim === 'iss') throw new OAuthRejection('invalid', 'The access token was issued by another issuer.');
      if (code === 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED') throw new OAuthRejection('invalid', 'The access token is not signed by this gateway.');
      throw new OAuthRejection('invalid', 'The access token is not a valid signed JWT of this gateway.');
    }
    if (typeof payload.jti !== 'string' || typeof payload.fam !== 'string' || typeof payload.sub !== 'string') {
      throw new OAuthRejection('invalid', 'The access token is not a valid signed JWT of this gateway.');
    }
    if (await this.env.store.accessTokenRevoked(payload.jti, payload.fam)) throw new OAuthRejection('invalid', 'The access token has been revoked.');
    const scopes = typeof payload.scope === 'string' ? payload.scope.split(' ').filter(Boolean) : [];
    const missing = (this.auth.scopes ?? []).filter((s) => !scopes.includes(s));
    if (missing.length) throw new OAuthRejection('scope', `The token lacks the scope${missing.length > 1 ? 's' : ''} ${missing.join(', ')}.`, missing);
    const str = (v: unknown) => (typeof v === 'string' && v ? v : undefined);
    const identity: Identity = {
      kind: 'oauth',
      id: `${issuer}#${payload.sub}`,
      user: payload.sub,
      email: str(payload.email),
      name: str(payload.name),
      team: str(payload.team),
      roles: Array.isArray(payload.roles) ? (payload.roles as unknown[]).filter((r): r is string => typeof r === 'string') : undefined,
      organization: str(payload.org_id),
      // The gateway's own tokens carry exactly the scopes granted (never widened).
      scopes: scopes.filter((s) => s === SCOPE_READ || s === SCOPE_WRITE),
    };
    if (payload.permissions && typeof payload.permissions === 'object') identity.permissions = payload.permissions as Identity['permissions'];
    return identity;
  }
}
