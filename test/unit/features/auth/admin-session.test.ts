import { mkdtempSync, rmSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FULL_ADMIN } from '../../../../src/features/auth/admin-roles.js';
import { ADMIN_SESSION_MIGRATIONS, AdminSessions, checkSessionRequest, sessionCookies } from '../../../../src/features/auth/admin-session.js';
import { ADMIN_IDENTITY } from '../../../../src/features/auth/auth-services.js';
import { ConfigKeys } from '../../../../src/features/auth/config-keys.js';
import { identityOfToken, TokenService } from '../../../../src/features/auth/token-service.js';
import { TOKEN_MIGRATIONS, TokenStore } from '../../../../src/features/auth/token-store.js';
import type { GatewayConfig } from '../../../../src/generated/gateway.js';
import { SqliteStore } from '../../../../src/kernel/store/sqlite/sqlite-store.js';

const TOKEN = 'admin-token-session-unit-0123456789abcdef';
const VIEWER_CFG_KEY = 'cfg-session-unit-viewer-0123456789abcdef';
const config = (ui: GatewayConfig['ui'] = {}): GatewayConfig => ({ auth: { adminToken: TOKEN }, ui }) as GatewayConfig;

function req(cookie: string | undefined, method = 'GET', headers: Record<string, string> = {}, encrypted = false): IncomingMessage {
  return { method, headers: { ...(cookie ? { cookie: `other=1; gw_admin_session=${cookie}` } : {}), ...headers }, socket: { encrypted } } as unknown as IncomingMessage;
}

describe('admin sessions in the shared store', () => {
  let dir: string;
  // Two connections to one SQLite file: two workers of a cluster.
  let workerA: SqliteStore;
  let workerB: SqliteStore;
  let sessionsA: AdminSessions;
  let sessionsB: AdminSessions;
  let tokens: TokenService;
  const userRoles = new Map<string, string[]>();
  const keys = new ConfigKeys([{ key: VIEWER_CFG_KEY, user: 'vera@example.com', roles: ['viewer'] }]);

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'admin-sessions-'));
    workerA = new SqliteStore(join(dir, 'gateway.db'));
    workerB = new SqliteStore(join(dir, 'gateway.db'));
    await workerA.migrate([...TOKEN_MIGRATIONS, ...ADMIN_SESSION_MIGRATIONS]);
    tokens = new TokenService(new TokenStore(workerA), '30d');
    userRoles.clear();
    const roles = () => async (user: string) => {
      const held = userRoles.get(user);
      return held && { roles: held };
    };
    sessionsA = new AdminSessions(workerA, { tokens, keys, userRoles: roles });
    sessionsB = new AdminSessions(workerB, { tokens: new TokenService(new TokenStore(workerB), '30d'), keys, userRoles: roles });
  });
  afterEach(async () => {
    vi.useRealTimers();
    await workerA.close();
    await workerB.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads back a session another worker made, and none signed with another admin token or tampered with', async () => {
    const { session, cookie } = await sessionsA.create(FULL_ADMIN, ADMIN_IDENTITY, config(), TOKEN);
    expect(await sessionsB.read(req(cookie), TOKEN)).toEqual(session);
    expect(await sessionsB.read(req(cookie), `${TOKEN}-changed`)).toBeUndefined();
    const [sid, sig] = cookie.split('.');
    expect(await sessionsB.read(req(`${sid}x.${sig}`), TOKEN)).toBeUndefined();
    expect(await sessionsB.read(req(`${sid}.`), TOKEN)).toBeUndefined();
    expect(await sessionsB.read(req('garbage'), TOKEN)).toBeUndefined();
    expect(await sessionsB.read(req(undefined), TOKEN)).toBeUndefined();
    // The cookie carries no role: only the stored session says what it may do.
    expect(Buffer.from(sid!, 'base64url').toString('utf8')).not.toContain('admin');
  });

  it('expires after ui.sessionTtl', async () => {
    vi.useFakeTimers({ now: new Date('2026-11-27T00:00:00Z'), toFake: ['Date'] });
    const { cookie } = await sessionsA.create(FULL_ADMIN, ADMIN_IDENTITY, config({ sessionTtl: 120 }), TOKEN);
    vi.setSystemTime(new Date('2026-11-27T00:01:59Z'));
    expect(await sessionsB.read(req(cookie), TOKEN)).toBeDefined();
    vi.setSystemTime(new Date('2026-11-27T00:02:00Z'));
    expect(await sessionsB.read(req(cookie), TOKEN)).toBeUndefined();
  });

  it('a logout on one worker ends the session on the other', async () => {
    const { session, cookie } = await sessionsA.create(FULL_ADMIN, ADMIN_IDENTITY, config(), TOKEN);
    expect(await sessionsB.read(req(cookie), TOKEN)).toBeDefined();
    await sessionsA.end(session);
    expect(await sessionsB.read(req(cookie), TOKEN)).toBeUndefined();
    expect(await sessionsA.read(req(cookie), TOKEN)).toBeUndefined();
  });

  it('a revoked or blocked key ends its session', async () => {
    const first = await tokens.create({ user: 'ada@example.com', roles: ['admin'] });
    const second = await tokens.create({ user: 'bob@example.com', roles: ['viewer'] });
    const a = await sessionsA.create(FULL_ADMIN, identityOfToken({ id: first.id, user: 'ada@example.com', roles: ['admin'] } as never), config(), TOKEN);
    const b = await sessionsA.create({ role: 'viewer' }, identityOfToken({ id: second.id, user: 'bob@example.com', roles: ['viewer'] } as never), config(), TOKEN);
    expect(await sessionsB.read(req(a.cookie), TOKEN)).toBeDefined();
    expect(await sessionsB.read(req(b.cookie), TOKEN)).toBeDefined();
    await tokens.revoke(first.id);
    await tokens.setBlocked(second.id, true);
    expect(await sessionsB.read(req(a.cookie), TOKEN)).toBeUndefined();
    expect(await sessionsB.read(req(b.cookie), TOKEN)).toBeUndefined();
    // Ended for good: unblocking the key does not bring the session back.
    await tokens.setBlocked(second.id, false);
    expect(await sessionsB.read(req(b.cookie), TOKEN)).toBeUndefined();
  });

  it("a key whose user lost the session's role ends its session; a user still holding it keeps it", async () => {
    const key = await tokens.create({ user: 'cy@example.com' });
    userRoles.set('cy@example.com', ['admin']);
    const identity = identityOfToken({ id: key.id, user: 'cy@example.com' } as never);
    const kept = await sessionsA.create(FULL_ADMIN, identity, config(), TOKEN);
    const reduced = await sessionsA.create(FULL_ADMIN, identity, config(), TOKEN);
    expect(await sessionsB.read(req(kept.cookie), TOKEN)).toBeDefined();
    userRoles.set('cy@example.com', ['viewer']);
    // A viewer now: the admin session ends (the user logs in again, as a viewer).
    expect(await sessionsB.read(req(reduced.cookie), TOKEN)).toBeUndefined();
    userRoles.set('cy@example.com', ['admin']);
    expect(await sessionsB.read(req(reduced.cookie), TOKEN)).toBeUndefined();
    expect(await sessionsB.read(req(kept.cookie), TOKEN)).toBeDefined();
  });

  it('a config key keeps its session while the config defines it with the role', async () => {
    const checked = keys.check(VIEWER_CFG_KEY);
    if (!checked.ok) throw new Error('the config key is not valid');
    const made = await sessionsA.create({ role: 'viewer' }, checked.identity, config(), TOKEN);
    expect((await sessionsB.read(req(made.cookie), TOKEN))?.access.role).toBe('viewer');
    const other = new AdminSessions(workerB, { tokens, keys: new ConfigKeys([]), userRoles: () => undefined });
    expect(await other.read(req(made.cookie), TOKEN)).toBeUndefined();
  });

  it('needs the CSRF token on writes only, and refuses writes under ui.readOnly (logout excepted)', async () => {
    const { session } = await sessionsA.create(FULL_ADMIN, ADMIN_IDENTITY, config(), TOKEN);
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
