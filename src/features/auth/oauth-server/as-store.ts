import type { Migration, SqlStore } from '../../../kernel/store/sql-store.js';

/**
 * The authorization server's durable state, in the gateway's store (SQLite or PostgreSQL, shared
 * by instances). Codes, refresh tokens and pending authorizations are kept by the SHA-256 of
 * their value, never the value.
 */
export const OAUTH_SERVER_MIGRATIONS: Migration[] = [
  {
    id: 'oauth-server-001-create',
    statements: [
      // Clients registered through RFC 7591 dynamic registration (metadata documents are fetched, not stored).
      'CREATE TABLE gateway_oauth_clients (client_id TEXT PRIMARY KEY, metadata TEXT NOT NULL, created_at BIGINT NOT NULL)',
      // Authorizations under way (login and consent pages), by the hash of their id.
      'CREATE TABLE gateway_oauth_pending (id_hash TEXT PRIMARY KEY, data TEXT NOT NULL, expires_at BIGINT NOT NULL)',
      'CREATE TABLE gateway_oauth_codes (code_hash TEXT PRIMARY KEY, family_id TEXT NOT NULL, data TEXT NOT NULL, expires_at BIGINT NOT NULL, used_at BIGINT)',
      // A family: the refresh tokens (and access tokens) descended from one authorization code.
      'CREATE TABLE gateway_oauth_families (family_id TEXT PRIMARY KEY, client_id TEXT NOT NULL, created_at BIGINT NOT NULL, expires_at BIGINT NOT NULL, revoked_at BIGINT)',
      `CREATE TABLE gateway_oauth_refresh_tokens (
        token_hash TEXT PRIMARY KEY,
        family_id TEXT NOT NULL,
        client_id TEXT NOT NULL,
        data TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        used_at BIGINT
      )`,
      'CREATE INDEX gateway_oauth_refresh_tokens_family ON gateway_oauth_refresh_tokens (family_id)',
      // Access tokens revoked before their expiry (RFC 7009), by their jti.
      'CREATE TABLE gateway_oauth_revoked (jti TEXT PRIMARY KEY, expires_at BIGINT NOT NULL)',
    ],
  },
  {
    id: 'oauth-server-002-login-failures',
    // Failed logins at /oauth/login, by the hash of the client address, in a fixed window.
    statements: ['CREATE TABLE gateway_oauth_login_failures (client_hash TEXT PRIMARY KEY, failures INTEGER NOT NULL, window_ends BIGINT NOT NULL)'],
  },
];

export interface CodeRow {
  familyId: string;
  data: string;
  expiresAt: number;
  usedAt: number | null;
}

export interface RefreshRow {
  familyId: string;
  clientId: string;
  data: string;
  usedAt: number | null;
  familyExpiresAt: number;
  familyRevokedAt: number | null;
}

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

export class OAuthServerStore {
  constructor(private readonly store: SqlStore) {}

  async registerClient(clientId: string, metadata: unknown, now: number): Promise<void> {
    await this.store.execute('INSERT INTO gateway_oauth_clients (client_id, metadata, created_at) VALUES (?, ?, ?)', [clientId, JSON.stringify(metadata), now]);
  }

  async client(clientId: string): Promise<Record<string, unknown> | undefined> {
    const rows = await this.store.query<{ metadata: string }>('SELECT metadata FROM gateway_oauth_clients WHERE client_id = ?', [clientId]);
    return rows[0] ? (JSON.parse(rows[0].metadata) as Record<string, unknown>) : undefined;
  }

  async savePending(idHash: string, data: unknown, expiresAt: number): Promise<void> {
    await this.store.execute(
      'INSERT INTO gateway_oauth_pending (id_hash, data, expires_at) VALUES (?, ?, ?) ON CONFLICT (id_hash) DO UPDATE SET data = excluded.data, expires_at = excluded.expires_at',
      [idHash, JSON.stringify(data), expiresAt],
    );
  }

  async pending(idHash: string, now: number): Promise<string | undefined> {
    const rows = await this.store.query<{ data: string }>('SELECT data FROM gateway_oauth_pending WHERE id_hash = ? AND expires_at > ?', [idHash, now]);
    return rows[0]?.data;
  }

  /** Removes a pending authorization; true when this call removed it (a second consent finds nothing). */
  async takePending(idHash: string): Promise<boolean> {
    return (await this.store.execute('DELETE FROM gateway_oauth_pending WHERE id_hash = ?', [idHash])) === 1;
  }

  async saveCode(codeHash: string, familyId: string, data: unknown, expiresAt: number): Promise<void> {
    await this.store.execute('INSERT INTO gateway_oauth_codes (code_hash, family_id, data, expires_at) VALUES (?, ?, ?, ?)', [codeHash, familyId, JSON.stringify(data), expiresAt]);
  }

  async code(codeHash: string): Promise<CodeRow | undefined> {
    const rows = await this.store.query<{ family_id: string; data: string; expires_at: unknown; used_at: unknown }>(
      'SELECT family_id, data, expires_at, used_at FROM gateway_oauth_codes WHERE code_hash = ?',
      [codeHash],
    );
    const r = rows[0];
    return r ? { familyId: r.family_id, data: r.data, expiresAt: Number(r.expires_at), usedAt: num(r.used_at) } : undefined;
  }

  /** Marks a code used; false when it already was (a replay). */
  async useCode(codeHash: string, now: number): Promise<boolean> {
    return (await this.store.execute('UPDATE gateway_oauth_codes SET used_at = ? WHERE code_hash = ? AND used_at IS NULL', [now, codeHash])) === 1;
  }

  async createFamily(familyId: string, clientId: string, now: number, expiresAt: number): Promise<void> {
    await this.store.execute('INSERT INTO gateway_oauth_families (family_id, client_id, created_at, expires_at) VALUES (?, ?, ?, ?) ON CONFLICT (family_id) DO NOTHING', [
      familyId,
      clientId,
      now,
      expiresAt,
    ]);
  }

  async revokeFamily(familyId: string, now: number): Promise<void> {
    // A family revoked before it was created (a replayed code) is created revoked.
    await this.store.execute(
      'INSERT INTO gateway_oauth_families (family_id, client_id, created_at, expires_at, revoked_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (family_id) DO UPDATE SET revoked_at = COALESCE(gateway_oauth_families.revoked_at, excluded.revoked_at)',
      [familyId, '', now, now, now],
    );
  }

  async saveRefresh(tokenHash: string, familyId: string, clientId: string, data: unknown, now: number): Promise<void> {
    await this.store.execute('INSERT INTO gateway_oauth_refresh_tokens (token_hash, family_id, client_id, data, created_at) VALUES (?, ?, ?, ?, ?)', [
      tokenHash,
      familyId,
      clientId,
      JSON.stringify(data),
      now,
    ]);
  }

  async refresh(tokenHash: string): Promise<RefreshRow | undefined> {
    const rows = await this.store.query<{ family_id: string; client_id: string; data: string; used_at: unknown; expires_at: unknown; revoked_at: unknown }>(
      `SELECT r.family_id, r.client_id, r.data, r.used_at, f.expires_at, f.revoked_at
       FROM gateway_oauth_refresh_tokens r JOIN gateway_oauth_families f ON f.family_id = r.family_id WHERE r.token_hash = ?`,
      [tokenHash],
    );
    const r = rows[0];
    if (!r) return undefined;
    return { familyId: r.family_id, clientId: r.client_id, data: r.data, usedAt: num(r.used_at), familyExpiresAt: Number(r.expires_at), familyRevokedAt: num(r.revoked_at) };
  }

  /** Marks a refresh token used (rotated); false when it already was (a reuse). */
  async useRefresh(tokenHash: string, now: number): Promise<boolean> {
    return (await this.store.execute('UPDATE gateway_oauth_refresh_tokens SET used_at = ? WHERE token_hash = ? AND used_at IS NULL', [now, tokenHash])) === 1;
  }

  async revokeAccessToken(jti: string, expiresAt: number): Promise<void> {
    await this.store.execute('INSERT INTO gateway_oauth_revoked (jti, expires_at) VALUES (?, ?) ON CONFLICT (jti) DO NOTHING', [jti, expiresAt]);
  }

  /** Whether an access token was revoked, itself or through its family. */
  async accessTokenRevoked(jti: string, familyId: string): Promise<boolean> {
    const rows = await this.store.query(
      'SELECT 1 AS hit FROM gateway_oauth_revoked WHERE jti = ? UNION ALL SELECT 1 AS hit FROM gateway_oauth_families WHERE family_id = ? AND revoked_at IS NOT NULL',
      [jti, familyId],
    );
    return rows.length > 0;
  }

  /** Drops what has expired (pending authorizations, codes, revoked-token entries, dead families). */
  /** The failed logins of a client in its current window (0 when its window ended). */
  async loginFailures(clientHash: string, now: number): Promise<{ failures: number; windowEnds: number }> {
    const rows = await this.store.query<{ failures: unknown; window_ends: unknown }>('SELECT failures, window_ends FROM gateway_oauth_login_failures WHERE client_hash = ?', [
      clientHash,
    ]);
    const row = rows[0];
    if (!row || Number(row.window_ends) <= now) return { failures: 0, windowEnds: now };
    return { failures: Number(row.failures), windowEnds: Number(row.window_ends) };
  }

  /** Counts one failed login of a client: a new window of `window` seconds starts when the last one ended. */
  async countLoginFailure(clientHash: string, now: number, window: number): Promise<void> {
    await this.store.execute(
      `INSERT INTO gateway_oauth_login_failures (client_hash, failures, window_ends) VALUES (?, 1, ?)
       ON CONFLICT (client_hash) DO UPDATE SET
         failures = CASE WHEN gateway_oauth_login_failures.window_ends <= ? THEN 1 ELSE gateway_oauth_login_failures.failures + 1 END,
         window_ends = CASE WHEN gateway_oauth_login_failures.window_ends <= ? THEN ? ELSE gateway_oauth_login_failures.window_ends END`,
      [clientHash, now + window, now, now, now + window],
    );
  }

  async sweep(now: number): Promise<void> {
    await this.store.execute('DELETE FROM gateway_oauth_login_failures WHERE window_ends <= ?', [now]);
    await this.store.execute('DELETE FROM gateway_oauth_pending WHERE expires_at <= ?', [now]);
    await this.store.execute('DELETE FROM gateway_oauth_codes WHERE expires_at <= ?', [now - 3600]);
    await this.store.execute('DELETE FROM gateway_oauth_revoked WHERE expires_at <= ?', [now]);
    await this.store.execute('DELETE FROM gateway_oauth_refresh_tokens WHERE family_id IN (SELECT family_id FROM gateway_oauth_families WHERE expires_at <= ?)', [now]);
    await this.store.execute('DELETE FROM gateway_oauth_families WHERE expires_at <= ?', [now]);
  }
}
