import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { GatewayConfig } from '../../generated/gateway.js';
import { forbidden, unauthorized } from '../../contract/errors/gateway-error.js';
import type { Identity } from '../../kernel/engine/context.js';
import type { Migration, SqlExecutor } from '../../kernel/store/sql-store.js';
import { ADMIN_ROLES, adminAccessOf, type AdminAccess, type UserRoles } from './admin-roles.js';
import type { ConfigKeys } from './config-keys.js';
import type { TokenService } from './token-service.js';

/** The HttpOnly cookie that carries an admin session (POST /v1/admin/session). */
export const SESSION_COOKIE = 'gw_admin_session';
/** The readable cookie holding the session's CSRF token (double submit: sent back in x-csrf-token on writes). */
export const CSRF_COOKIE = 'gw_csrf';
export const CSRF_HEADER = 'x-csrf-token';
export const DEFAULT_SESSION_TTL_S = 28_800;

/** A session (kept in the store, shared by every worker and instance; the cookie carries only its signed id). */
export interface AdminSession {
  /** The access the credential had at login (checked again on each request). */
  access: AdminAccess;
  identity: Identity;
  /** Unix seconds. */
  expiresAt: number;
  csrf: string;
  /** Random id of the session (logout deletes it). */
  sid: string;
}

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

export const ADMIN_SESSION_MIGRATIONS: Migration[] = [
  {
    id: 'admin-sessions-001-create',
    statements: ['CREATE TABLE IF NOT EXISTS gateway_admin_sessions (sid_hash TEXT PRIMARY KEY, session TEXT NOT NULL, expires_at BIGINT NOT NULL)'],
  },
];

/** The signing key: derived from the admin token, so changing the admin token ends every session. */
function signingKey(adminToken: string): Buffer {
  return createHmac('sha256', adminToken).update('pipeline-gateway admin session v2').digest();
}

function sign(sid: string, adminToken: string): string {
  return createHmac('sha256', signingKey(adminToken)).update(sid).digest('base64url');
}

/** The store holds a hash of the id: a read of the table does not give a usable cookie. */
const sidHash = (sid: string) => createHash('sha256').update(sid).digest('base64url');

export function sessionTtl(config: GatewayConfig): number {
  return config.ui?.sessionTtl ?? DEFAULT_SESSION_TTL_S;
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** How a session's credential is looked up again on each request. */
export interface SessionCredentials {
  tokens: TokenService;
  keys: ConfigKeys | undefined;
  /** The tenants' user roles (provided after auth: read when a session is checked). */
  userRoles: () => UserRoles | undefined;
}

/**
 * The admin sessions, in the gateway's store (the SQLite file the workers of a cluster share, or
 * PostgreSQL for several instances): a logout on one worker is seen by all, and each request
 * looks the session's credential up again: a revoked, blocked or expired key, or one that no
 * longer holds the session's role (its roles or its user's changed), ends the session.
 */
export class AdminSessions {
  constructor(
    private readonly store: SqlExecutor,
    private readonly credentials: SessionCredentials,
  ) {}

  /** A new session for `access` and `identity`, stored, and its cookie value. */
  async create(access: AdminAccess, identity: Identity, config: GatewayConfig, adminToken: string): Promise<{ session: AdminSession; cookie: string }> {
    const session: AdminSession = {
      access,
      identity: { kind: identity.kind, id: identity.id, ...(identity.user ? { user: identity.user } : {}), ...(identity.team ? { team: identity.team } : {}) },
      expiresAt: nowSeconds() + sessionTtl(config),
      csrf: randomBytes(24).toString('base64url'),
      sid: randomBytes(24).toString('base64url'),
    };
    await this.store.execute('DELETE FROM gateway_admin_sessions WHERE expires_at <= ?', [nowSeconds()]);
    const { sid: _sid, ...kept } = session;
    await this.store.execute('INSERT INTO gateway_admin_sessions (sid_hash, session, expires_at) VALUES (?, ?, ?)', [
      sidHash(session.sid),
      JSON.stringify(kept),
      session.expiresAt,
    ]);
    return { session, cookie: `${session.sid}.${sign(session.sid, adminToken)}` };
  }

  /**
   * The session of the request's cookie: undefined when it is missing, forged, expired, ended,
   * or its credential no longer holds its role (the session is then deleted).
   */
  async read(req: IncomingMessage, adminToken: string): Promise<AdminSession | undefined> {
    const value = requestCookies(req).get(SESSION_COOKIE);
    if (!value || value.length > 512) return undefined;
    const dot = value.indexOf('.');
    if (dot < 1) return undefined;
    const sid = value.slice(0, dot);
    const given = Buffer.from(value.slice(dot + 1));
    const expected = Buffer.from(sign(sid, adminToken));
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    const rows = await this.store.query<{ session: string; expires_at: number | string }>('SELECT session, expires_at FROM gateway_admin_sessions WHERE sid_hash = ?', [
      sidHash(sid),
    ]);
    const row = rows[0];
    if (!row || Number(row.expires_at) <= nowSeconds()) return undefined;
    let session: AdminSession;
    try {
      session = { ...(JSON.parse(row.session) as Omit<AdminSession, 'sid'>), sid };
    } catch {
      return undefined;
    }
    if (!(await this.stillHolds(session))) {
      await this.end(session);
      return undefined;
    }
    return session;
  }

  /** Whether the session's credential still opens the admin API with the session's role (and team). */
  private async stillHolds(session: AdminSession): Promise<boolean> {
    const { kind, id } = session.identity;
    // The admin token: the cookie's signature is made with it, so a new admin token ends the session.
    if (kind === 'admin') return true;
    let identity: Identity | undefined;
    if (kind === 'token') identity = await this.credentials.tokens.currentIdentity(id);
    else if (kind === 'api-key') identity = this.credentials.keys?.identityById(id);
    // A login through the OpenID provider: its role came from the user's roles in the tenants, checked again here.
    else if (kind === 'oauth' && session.identity.user) identity = { kind, id, user: session.identity.user, ...(session.identity.team ? { team: session.identity.team } : {}) };
    if (!identity) return false;
    const userRoles = this.credentials.userRoles();
    const access = adminAccessOf(identity, identity.user && userRoles ? await userRoles(identity.user) : undefined, ADMIN_ROLES);
    return !!access && access.role === session.access.role && (access.team ?? null) === (session.access.team ?? null);
  }

  /** Ends a session before it expires, for every worker and instance (the cookie is cleared in the browser too). */
  async end(session: AdminSession): Promise<void> {
    await this.store.execute('DELETE FROM gateway_admin_sessions WHERE sid_hash = ?', [sidHash(session.sid)]);
  }
}

/** The cookie holding a console login through the OpenID provider between the redirect and the callback (SameSite=Lax: the provider sends the browser back). */
export const OIDC_COOKIE = 'gw_admin_oidc';
const OIDC_LOGIN_TTL_S = 600;

/** What the OIDC login cookie carries (signed; HttpOnly): the state sent, and the nonce and PKCE verifier of the attempt. */
export interface OidcLoginState {
  state: string;
  nonce: string;
  verifier: string;
  expiresAt: number;
}

/** A new random state for an OIDC login. */
export const newOidcState = (): string => randomBytes(24).toString('base64url');

/** The signed cookie value of an OIDC login attempt. */
export function sealOidcLogin(state: string, attempt: { nonce: string; verifier: string }, adminToken: string): string {
  const payload = Buffer.from(
    JSON.stringify({ state, nonce: attempt.nonce, verifier: attempt.verifier, expiresAt: nowSeconds() + OIDC_LOGIN_TTL_S } satisfies OidcLoginState),
  ).toString('base64url');
  return `${payload}.${sign(`oidc:${payload}`, adminToken)}`;
}

/** The OIDC login attempt of the request's cookie when its signature holds, it has not expired and `state` is its state. */
export function openOidcLogin(req: IncomingMessage, state: string, adminToken: string): OidcLoginState | undefined {
  const value = requestCookies(req).get(OIDC_COOKIE);
  if (!value || value.length > 2048) return undefined;
  const dot = value.indexOf('.');
  if (dot < 1) return undefined;
  const payload = value.slice(0, dot);
  const given = Buffer.from(value.slice(dot + 1));
  const expected = Buffer.from(sign(`oidc:${payload}`, adminToken));
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  let login: OidcLoginState;
  try {
    login = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as OidcLoginState;
  } catch {
    return undefined;
  }
  if (typeof login.expiresAt !== 'number' || login.expiresAt <= nowSeconds() || typeof login.state !== 'string') return undefined;
  const a = Buffer.from(login.state);
  const b = Buffer.from(state);
  if (a.length !== b.length || !timingSafeEqual(a, b)) return undefined;
  return login;
}

/** The Set-Cookie of an OIDC login attempt (or, with `value` undefined, of clearing it). */
export function oidcCookie(req: IncomingMessage, value: string | undefined): string {
  const secure = overTls(req) ? '; Secure' : '';
  return `${OIDC_COOKIE}=${value ?? ''}; Path=/v1/admin/session; HttpOnly; SameSite=Lax; Max-Age=${value === undefined ? 0 : OIDC_LOGIN_TTL_S}${secure}`;
}

/** The cookies of a request (the first value of each name). */
export function requestCookies(req: IncomingMessage): Map<string, string> {
  const out = new Map<string, string>();
  const header = req.headers.cookie;
  if (!header) return out;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 1) continue;
    const name = part.slice(0, eq).trim();
    if (!out.has(name)) out.set(name, part.slice(eq + 1).trim());
  }
  return out;
}

/** Whether the request carries a session cookie (and no bearer credential, which wins). */
export function presentsSession(req: IncomingMessage): boolean {
  if (req.headers.authorization || req.headers['x-gateway-token']) return false;
  return requestCookies(req).has(SESSION_COOKIE);
}

/**
 * The checks of a request authenticated by a session cookie: a write needs the session's CSRF
 * token in x-csrf-token (403 without it), and `ui.readOnly` refuses every write (403). Logging
 * out (DELETE /v1/admin/session) is always allowed with the CSRF token.
 */
export function checkSessionRequest(req: IncomingMessage, session: AdminSession, config: GatewayConfig, logout = false): void {
  if (READS.has(req.method ?? 'GET')) return;
  const header = req.headers[CSRF_HEADER];
  const given = Buffer.from(typeof header === 'string' ? header : '');
  const expected = Buffer.from(session.csrf);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw forbidden(`A write made with an admin session cookie needs its CSRF token in the ${CSRF_HEADER} header.`);
  }
  if (!logout && config.ui?.readOnly === true) throw forbidden('The console is read-only (ui.readOnly): writes made with an admin session cookie are refused.');
}

/** The 401 for a session cookie that is not (or no longer) valid. */
export function invalidSession(): Error {
  return unauthorized('The admin session is not valid or has expired: log in again (POST /v1/admin/session).');
}

/** Whether the request came over TLS (the session cookie is then Secure). */
export function overTls(req: IncomingMessage): boolean {
  return (req.socket as TLSSocket).encrypted === true;
}

/** The Set-Cookie values of a new session (or, with `session` undefined, of clearing it). */
export function sessionCookies(req: IncomingMessage, cookie: string | undefined, maxAge: number, csrf: string | undefined): string[] {
  const secure = overTls(req) ? '; Secure' : '';
  const age = cookie === undefined ? 0 : maxAge;
  return [
    `${SESSION_COOKIE}=${cookie ?? ''}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${age}${secure}`,
    `${CSRF_COOKIE}=${csrf ?? ''}; Path=/; SameSite=Strict; Max-Age=${age}${secure}`,
  ];
}
