import type { IncomingMessage } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FULL_ADMIN } from '../../../../src/features/auth/admin-roles.js';
import { checkSessionRequest, endSession, newSession, readSession, sessionCookies } from '../../../../src/features/auth/admin-session.js';
import { ADMIN_IDENTITY } from '../../../../src/features/auth/auth-services.js';
import type { GatewayConfig } from '../../../../src/generated/gateway.js';

const TOKEN = 'admin-token-session-unit-0123456789abcdef';
const config = (ui: GatewayConfig['ui'] = {}): GatewayConfig => ({ auth: { adminToken: TOKEN }, ui }) as GatewayConfig;

function req(cookie: string | undefined, method = 'GET', headers: Record<string, string> = {}, encrypted = false): IncomingMessage {
  return { method, headers: { ...(cookie ? { cookie: `other=1; gw_admin_session=${cookie}` } : {}), ...headers }, socket: { encrypted } } as unknown as IncomingMessage;
}

describe('admin session cookies', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('reads back a session it signed, and none signed with another admin token or tampered with', () => {
    const { session, cookie } = newSession(FULL_ADMIN, ADMIN_IDENTITY, config(), TOKEN);
    expect(readSession(req(cookie), TOKEN)).toEqual(session);
    expect(readSession(req(cookie), `${TOKEN}-changed`)).toBeUndefined();
    const [payload, sig] = cookie.split('.');
    const viewer = Buffer.from(JSON.stringify({ ...session, access: { role: 'admin', team: 'x' } })).toString('base64url');
    expect(readSession(req(`${viewer}.${sig}`), TOKEN)).toBeUndefined();
    expect(readSession(req(`${payload}.`), TOKEN)).toBeUndefined();
    expect(readSession(req('garbage'), TOKEN)).toBeUndefined();
    expect(readSession(req(undefined), TOKEN)).toBeUndefined();
  });

  it('expires after ui.sessionTtl', () => {
    vi.useFakeTimers({ now: new Date('2026-11-27T00:00:00Z') });
    const { cookie } = newSession(FULL_ADMIN, ADMIN_IDENTITY, config({ sessionTtl: 120 }), TOKEN);
    vi.setSystemTime(new Date('2026-11-27T00:01:59Z'));
    expect(readSession(req(cookie), TOKEN)).toBeDefined();
    vi.setSystemTime(new Date('2026-11-27T00:02:00Z'));
    expect(readSession(req(cookie), TOKEN)).toBeUndefined();
  });

  it('ends a session on logout', () => {
    const { session, cookie } = newSession(FULL_ADMIN, ADMIN_IDENTITY, config(), TOKEN);
    endSession(session);
    expect(readSession(req(cookie), TOKEN)).toBeUndefined();
  });

  it('needs the CSRF token on writes only, and refuses writes under ui.readOnly (logout excepted)', () => {
    const { session } = newSession(FULL_ADMIN, ADMIN_IDENTITY, config(), TOKEN);
    expect(() => checkSessionRequest(req('x', 'GET'), session, config())).not.toThrow();
    expect(() => checkSessionRequest(req('x', 'POST'), session, config())).toThrow(/x-csrf-token/);
    expect(() => checkSessionRequest(req('x', 'DELETE', { 'x-csrf-token': 'wrong' }), session, config())).toThrow(/x-csrf-token/);
    expect(() => checkSessionRequest(req('x', 'PATCH', { 'x-csrf-token': session.csrf }), session, config())).not.toThrow();
    expect(() => checkSessionRequest(req('x', 'POST', { 'x-csrf-token': session.csrf }), session, config({ readOnly: true }))).toThrow(/read-only/);
    expect(() => checkSessionRequest(req('x', 'DELETE', { 'x-csrf-token': session.csrf }), session, config({ readOnly: true }), true)).not.toThrow();
  });

  it('marks the cookies HttpOnly (the session), SameSite=Strict, and Secure over TLS only', () => {
    const plain = sessionCookies(req(undefined), 'v.s', 60, 'c');
    expect(plain[0]).toBe('gw_admin_session=v.s; Path=/; HttpOnly; SameSite=Strict; Max-Age=60');
    expect(plain[1]).toBe('gw_csrf=c; Path=/; SameSite=Strict; Max-Age=60');
    const tls = sessionCookies(req(undefined, 'GET', {}, true), 'v.s', 60, 'c');
    expect(tls.every((c) => c.endsWith('; Secure'))).toBe(true);
    expect(sessionCookies(req(undefined), undefined, 0, undefined)[0]).toBe('gw_admin_session=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0');
  });
});
