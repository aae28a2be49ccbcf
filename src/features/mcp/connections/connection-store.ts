import type { Migration, SqlStore } from '../../../kernel/store/sql-store.js';

/**
 * Each user's connections to tool servers of `auth.upstream: per_user_oauth`, in the store every
 * instance shares: the tokens of one (owner, server), sealed (AES-256-GCM under secrets.key),
 * and the connections under way (by the SHA-256 of their state, their PKCE verifier sealed).
 */
export const CONNECTION_MIGRATIONS: Migration[] = [
  {
    id: 'mcp-connections-001-create',
    statements: [
      `CREATE TABLE gateway_mcp_connections (
        owner TEXT NOT NULL,
        server TEXT NOT NULL,
        tokens TEXT NOT NULL,
        scope TEXT,
        expires_at BIGINT,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL,
        PRIMARY KEY (owner, server)
      )`,
      'CREATE TABLE gateway_mcp_connect_states (state_hash TEXT PRIMARY KEY, owner TEXT NOT NULL, server TEXT NOT NULL, data TEXT NOT NULL, expires_at BIGINT NOT NULL)',
    ],
  },
];

/** A held connection as stored (tokens sealed). */
export interface ConnectionRow {
  owner: string;
  server: string;
  tokens: string;
  scope: string | null;
  expiresAt: number | null;
  createdAt: number;
  updatedAt: number;
}

export interface StateRow {
  owner: string;
  server: string;
  data: string;
}

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

interface RawRow {
  owner: string;
  server: string;
  tokens: string;
  scope: string | null;
  expires_at: unknown;
  created_at: unknown;
  updated_at: unknown;
}

const toRow = (r: RawRow): ConnectionRow => ({
  owner: r.owner,
  server: r.server,
  tokens: r.tokens,
  scope: r.scope,
  expiresAt: num(r.expires_at),
  createdAt: Number(r.created_at),
  updatedAt: Number(r.updated_at),
});

export class ConnectionStore {
  constructor(private readonly store: SqlStore) {}

  async save(row: Omit<ConnectionRow, 'createdAt' | 'updatedAt'>, now: number): Promise<void> {
    await this.store.execute(
      `INSERT INTO gateway_mcp_connections (owner, server, tokens, scope, expires_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (owner, server) DO UPDATE SET tokens = excluded.tokens, scope = excluded.scope, expires_at = excluded.expires_at, updated_at = excluded.updated_at`,
      [row.owner, row.server, row.tokens, row.scope, row.expiresAt, now, now],
    );
  }

  async get(owner: string, server: string): Promise<ConnectionRow | undefined> {
    const rows = await this.store.query<RawRow>('SELECT * FROM gateway_mcp_connections WHERE owner = ? AND server = ?', [owner, server]);
    return rows[0] && toRow(rows[0]);
  }

  /** The connections of one owner, or of everyone (owner undefined), by owner then server. */
  async list(owner: string | undefined, limit: number): Promise<ConnectionRow[]> {
    const rows = owner
      ? await this.store.query<RawRow>('SELECT * FROM gateway_mcp_connections WHERE owner = ? ORDER BY server LIMIT ?', [owner, limit])
      : await this.store.query<RawRow>('SELECT * FROM gateway_mcp_connections ORDER BY owner, server LIMIT ?', [limit]);
    return rows.map(toRow);
  }

  /** Marks the access token of a connection expired (the server refused it): the next use refreshes it. */
  async expire(owner: string, server: string): Promise<void> {
    await this.store.execute('UPDATE gateway_mcp_connections SET expires_at = 0 WHERE owner = ? AND server = ?', [owner, server]);
  }

  /** True when this call removed the connection. */
  async remove(owner: string, server: string): Promise<boolean> {
    return (await this.store.execute('DELETE FROM gateway_mcp_connections WHERE owner = ? AND server = ?', [owner, server])) === 1;
  }

  async saveState(stateHash: string, owner: string, server: string, data: string, expiresAt: number, now: number): Promise<void> {
    await this.store.execute('DELETE FROM gateway_mcp_connect_states WHERE expires_at <= ?', [now]);
    await this.store.execute('INSERT INTO gateway_mcp_connect_states (state_hash, owner, server, data, expires_at) VALUES (?, ?, ?, ?, ?)', [
      stateHash,
      owner,
      server,
      data,
      expiresAt,
    ]);
  }

  /** Takes a connection under way (single use: a second take finds nothing); undefined when unknown, used or expired. */
  /** A state's row while it is unused and unexpired, left in place (the consent page reads it). */
  async peekState(stateHash: string, now: number): Promise<StateRow | undefined> {
    const rows = await this.store.query<StateRow & { expires_at: unknown }>('SELECT owner, server, data, expires_at FROM gateway_mcp_connect_states WHERE state_hash = ?', [
      stateHash,
    ]);
    const row = rows[0];
    if (!row || Number(row.expires_at) <= now) return undefined;
    return { owner: row.owner, server: row.server, data: row.data };
  }

  async takeState(stateHash: string, now: number): Promise<StateRow | undefined> {
    const rows = await this.store.query<StateRow & { expires_at: unknown }>('SELECT owner, server, data, expires_at FROM gateway_mcp_connect_states WHERE state_hash = ?', [
      stateHash,
    ]);
    const row = rows[0];
    if (!row) return undefined;
    const removed = await this.store.execute('DELETE FROM gateway_mcp_connect_states WHERE state_hash = ?', [stateHash]);
    if (removed !== 1 || Number(row.expires_at) <= now) return undefined;
    return { owner: row.owner, server: row.server, data: row.data };
  }
}
