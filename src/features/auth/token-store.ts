import type { Migration, SqlStore } from '../../kernel/store/sql-store.js';

/** A gateway-issued token as stored: never its value, only the SHA-256 of it. */
export interface TokenRecord {
  id: string;
  user: string;
  team: string | null;
  email: string | null;
  name: string | null;
  roles: string[] | null;
  organization: string | null;
  scopes: string[];
  permissions: { servers?: string[]; tools?: string[] } | null;
  /** Unix seconds. */
  createdAt: number;
  expiresAt: number | null;
  revokedAt: number | null;
  rotatedAt: number | null;
}

export const TOKEN_MIGRATIONS: Migration[] = [
  {
    id: 'auth-tokens-001-create',
    statements: [
      `CREATE TABLE gateway_auth_tokens (
        id TEXT PRIMARY KEY,
        token_hash TEXT NOT NULL,
        user_id TEXT NOT NULL,
        team TEXT,
        email TEXT,
        name TEXT,
        roles TEXT,
        organization TEXT,
        scopes TEXT NOT NULL,
        permissions TEXT,
        created_at BIGINT NOT NULL,
        expires_at BIGINT,
        revoked_at BIGINT,
        rotated_at BIGINT
      )`,
      'CREATE UNIQUE INDEX gateway_auth_tokens_hash ON gateway_auth_tokens (token_hash)',
    ],
  },
];

interface Row {
  id: string;
  token_hash: string;
  user_id: string;
  team: string | null;
  email: string | null;
  name: string | null;
  roles: string | null;
  organization: string | null;
  scopes: string;
  permissions: string | null;
  created_at: number | string;
  expires_at: number | string | null;
  revoked_at: number | string | null;
  rotated_at: number | string | null;
}

const COLUMNS = 'id, token_hash, user_id, team, email, name, roles, organization, scopes, permissions, created_at, expires_at, revoked_at, rotated_at';

const num = (v: number | string | null): number | null => (v === null || v === undefined ? null : Number(v));

function fromRow(row: Row): TokenRecord {
  return {
    id: row.id,
    user: row.user_id,
    team: row.team,
    email: row.email,
    name: row.name,
    roles: row.roles ? (JSON.parse(row.roles) as string[]) : null,
    organization: row.organization,
    scopes: JSON.parse(row.scopes) as string[],
    permissions: row.permissions ? JSON.parse(row.permissions) : null,
    createdAt: Number(row.created_at),
    expiresAt: num(row.expires_at),
    revokedAt: num(row.revoked_at),
    rotatedAt: num(row.rotated_at),
  };
}

/** Token rows in the durable store (SQLite or PostgreSQL), shared by every gateway instance. */
export class TokenStore {
  constructor(private readonly store: SqlStore) {}

  async insert(record: TokenRecord, tokenHash: string): Promise<void> {
    await this.store.execute(`INSERT INTO gateway_auth_tokens (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, [
      record.id,
      tokenHash,
      record.user,
      record.team,
      record.email,
      record.name,
      record.roles ? JSON.stringify(record.roles) : null,
      record.organization,
      JSON.stringify(record.scopes),
      record.permissions ? JSON.stringify(record.permissions) : null,
      record.createdAt,
      record.expiresAt,
      record.revokedAt,
      record.rotatedAt,
    ]);
  }

  /** The token whose value hashes to `tokenHash` (revoked and expired ones included). */
  async findByHash(tokenHash: string): Promise<TokenRecord | undefined> {
    const rows = await this.store.query<Row>(`SELECT ${COLUMNS} FROM gateway_auth_tokens WHERE token_hash = ?`, [tokenHash]);
    return rows[0] ? fromRow(rows[0]) : undefined;
  }

  async get(id: string): Promise<TokenRecord | undefined> {
    const rows = await this.store.query<Row>(`SELECT ${COLUMNS} FROM gateway_auth_tokens WHERE id = ?`, [id]);
    return rows[0] ? fromRow(rows[0]) : undefined;
  }

  async list(): Promise<TokenRecord[]> {
    const rows = await this.store.query<Row>(`SELECT ${COLUMNS} FROM gateway_auth_tokens ORDER BY created_at DESC, id`);
    return rows.map(fromRow);
  }

  /** Sets revoked_at once; resolves with the record as it now is. */
  async revoke(id: string, now: number): Promise<TokenRecord | undefined> {
    await this.store.execute('UPDATE gateway_auth_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL', [now, id]);
    return this.get(id);
  }

  /** Replaces the stored hash (the old value stops working at once); false when the token cannot be rotated. */
  async rotate(id: string, newHash: string, now: number, expiresAt: number | null): Promise<boolean> {
    const changed = await this.store.execute(
      'UPDATE gateway_auth_tokens SET token_hash = ?, rotated_at = ?, expires_at = ? WHERE id = ? AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?)',
      [newHash, now, expiresAt, id, now],
    );
    return changed === 1;
  }
}
