import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { GatewayConfig } from '../../generated/gateway.js';
import { forbidden, unauthorized } from '../../contract/errors/gateway-error.js';
import type { Identity } from '../../kernel/engine/context.js';
import type { AdminAccess } from './admin-roles.js';

/** The HttpOnly cookie that carries an admin session (POST /v1/admin/session). */
export const SESSION_COOKIE = 'gw_admin_session';
/** The readable cookie holding the session's CSRF token (double submit: sent back in x-csrf-token on writes). */
export const CSRF_COOKIE = 'gw_csrf';
export const CSRF_HEADER = 'x-csrf-token';
export const DEFAULT_SESSION_TTL_S = 28_800;

/** What a session cookie carries (signed, not encrypted: nothing secret is in it). */
export interface AdminSession {
  /** The access the credential had at login. */
  access: AdminAccess;
  identity: Identity;
  /** Unix seconds. */
  expiresAt: number;
  csrf: string;
  /** Random id of the session (logout revokes it). */
  sid: string;
}

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Sessions ended by DELETE /v1/admin/session before they expired: sid -> expiry (Unix seconds). */
const ended = new Map<string, number>();

function b64(data: Buffer | string): string {
  return Buffer.from(data).toString('base64url');
}

/** The signing key: derived from the admin token, so changing the admin token ends every session. */
function signingKey(adminToken: string): Buffer {
  return createHmac('sha256', adminToken).update('pipeline-gateway admin session v1').digest();
}

function sign(payload: string, adminToken: string): string {
  return createHmac('sha256', signingKey(adminToken)).update(payload).digest('base64url');
}

export function sessionTtl(config: GatewayConfig): number {
  return config.ui?.sessionTtl ?? DEFAULT_SESSION_TTL_S;
}

/** A new session for `access` and `identity`, and its cookie value. */
export function newSession(access: AdminAccess, identity: Identity, config: GatewayConfig, adminToken: string): { session: AdminSession; cookie: string } {
  const session: AdminSession = {
    access,
    identity: { kind: identity.kind, id: identity.id, ...(identity.user ? { user: identity.user } : {}), ...(identity.team ? { team: identity.team } : {}) },
    expiresAt: Math.floor(Date.now() / 1000) + sessionTtl(config),
    csrf: randomBytes(24).toString('base64url'),
    sid: randomBytes(16).toString('base64url'),
  };
  const payload = b64(JSON.stringify(session));
  return { session, cookie: `${payload}.${sign(payload, adminToken)}` };
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

/** The session of the request's cookie: undefined when it is missing, forged, expired or ended. */
export function readSession(req: IncomingMessage, adminToken: string): AdminSession | undefined {
  const value = requestCookies(req).get(SESSION_COOKIE);
  if (!value || value.length > 4096) return undefined;
  const dot = value.indexOf('.');
  if (dot < 1) return undefined;
  const payload = value.slice(0, dot);
  const given = Buffer.from(value.slice(dot + 1));
  const expected = Buffer.from(sign(payload, adminToken));
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  let session: AdminSession;
  try {
    session = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as AdminSession;
  } catch {
    return undefined;
  }
  const now = Math.floor(Date.now() / 1000);
  if (typeof session.expiresAt !== 'number' || session.expiresAt <= now || ended.has(session.sid)) return undefined;
  return session;
}

/** Ends a session before it expires (this process; the cookie is cleared in the browser too). */
export function endSession(session: AdminSession): void {
  const now = Math.floor(Date.now() / 1000);
  for (const [sid, until] of ended) if (until <= now) ended.delete(sid);
  ended.set(session.sid, session.expiresAt);
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
