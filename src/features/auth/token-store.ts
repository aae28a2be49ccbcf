import type { Migration, SqlStore } from '../../kernel/store/sql-store.js';
import type { Budget } from '../../generated/governance/budget.js';
import type { GatewayKeyLimits } from '../../generated/requests/auth-tokens-create.js';

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
  /** Catalogue models (names or globs) the key may use; null: every model. */
  models: string[] | null;
  limits: GatewayKeyLimits | null;
  budgets: Budget[] | null;
  metadata: Record<string, unknown> | null;
  /** Unix seconds when the key was blocked; null: not blocked. */
  blockedAt: number | null;
  /** Until when (Unix seconds) the value before the last rotation keeps working; null: it stopped at once. */
  previousUntil: number | null;
  /** The value's last four characters (not a secret: what a list shows as gwt_…abcd); null for keys made before they were kept. */
  last4?: string | null;
}

/** The columns `search` looks in. */
const SEARCHED = ['id', 'user_id', 'name', 'email', 'team', 'organization'];

/** What separates two columns in SEARCH_TEXT (a search that holds one is answered column by column). */
const SEARCH_SEPARATOR = '\n';

/**
 * On PostgreSQL, the searched columns as one text: each lower-cased, a line break between two.
 * A search without a line break is a part of one of them exactly when it is a part of this text
 * (a part of it that holds no line break lies inside one column), so one LIKE on it answers the
 * search, and a trigram index on this very expression (auth-tokens-005) finds its rows without
 * reading every key. The query must spell it as the index does.
 */
const SEARCH_TEXT = SEARCHED.map((c) => `COALESCE(LOWER(${c}), '')`).join(` || E'\\n' || `);

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
  {
    // Gateway keys (contract section 8): models, limits, budgets, metadata, block, and the old value kept through a rotation's grace period.
    id: 'auth-tokens-002-gateway-keys',
    statements: [
      'ALTER TABLE gateway_auth_tokens ADD COLUMN models TEXT',
      'ALTER TABLE gateway_auth_tokens ADD COLUMN limits TEXT',
      'ALTER TABLE gateway_auth_tokens ADD COLUMN budgets TEXT',
      'ALTER TABLE gateway_auth_tokens ADD COLUMN metadata TEXT',
      'ALTER TABLE gateway_auth_tokens ADD COLUMN blocked_at BIGINT',
      'ALTER TABLE gateway_auth_tokens ADD COLUMN previous_hash TEXT',
      'ALTER TABLE gateway_auth_tokens ADD COLUMN previous_until BIGINT',
      'CREATE INDEX gateway_auth_tokens_previous ON gateway_auth_tokens (previous_hash)',
    ],
  },
  {
    // The value's last four characters, so a list can show which value a key has (gwt_…abcd) without the value.
    id: 'auth-tokens-003-last4',
    statements: ['ALTER TABLE gateway_auth_tokens ADD COLUMN last4 TEXT'],
  },
  {
    // The key list is paged in the store by (created_at, id), over every key or one team's.
    id: 'auth-tokens-004-list-order',
    statements: [
      'CREATE INDEX gateway_auth_tokens_created ON gateway_auth_tokens (created_at, id)',
      'CREATE INDEX gateway_auth_tokens_team_created ON gateway_auth_tokens (team, created_at, id)',
    ],
  },
  {
    // The key search on PostgreSQL: a trigram index (pg_trgm) on the searched text, so that a
    // search reads the keys it finds, not every key. The extension may be created by the
    // gateway's role (pg_trgm is trusted: a role with CREATE on the database may) or beforehand
    // by an admin, in any schema: the index names its operator class with that schema.
    id: 'auth-tokens-005-search-trigrams',
    dialect: 'postgres',
    optional: {
      without:
        "the key list's search reads every key (its index needs the pg_trgm extension: an admin runs CREATE EXTENSION pg_trgm in the gateway's database, and the next start makes the index)",
    },
    statements: [
      'CREATE EXTENSION IF NOT EXISTS pg_trgm',
      `DO $$
      DECLARE trgm name;
      BEGIN
        SELECT n.nspname INTO trgm FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm';
        EXECUTE format('CREATE INDEX gateway_auth_tokens_search ON gateway_auth_tokens USING gin ((%s) %I.gin_trgm_ops)', $text$${SEARCH_TEXT}$text$, trgm);
      END $$`,
    ],
  },
];

/** One page of the key list, as the store answers it (see TokenStore.page). */
export interface TokenPageQuery {
  order: 'asc' | 'desc';
  /** Lower-case; a part of the id, user, name, email, team or organization (case-insensitive). */
  search?: string;
  /** Only this team's keys. */
  team?: string;
  /** The id of the key the page starts after; it must be in the list the other fields select. */
  after?: string;
  /** At most this many keys (undefined: every key). */
  limit?: number;
}

/** `text` as the inside of a LIKE pattern (ESCAPE with a backslash): its %, _ and backslashes match only themselves. */
const likeText = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

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
  models: string | null;
  limits: string | null;
  budgets: string | null;
  metadata: string | null;
  blocked_at: number | string | null;
  previous_until: number | string | null;
  last4: string | null;
}

const COLUMNS =
  'id, token_hash, user_id, team, email, name, roles, organization, scopes, permissions, created_at, expires_at, revoked_at, rotated_at, models, limits, budgets, metadata, blocked_at, previous_until, last4';

const json = (v: unknown): string | null => (v === null || v === undefined ? null : JSON.stringify(v));
const parsed = <T>(v: string | null): T | null => (v ? (JSON.parse(v) as T) : null);

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
    models: parsed<string[]>(row.models),
    limits: parsed<GatewayKeyLimits>(row.limits),
    budgets: parsed<Budget[]>(row.budgets),
    metadata: parsed<Record<string, unknown>>(row.metadata),
    blockedAt: num(row.blocked_at),
    previousUntil: num(row.previous_until),
    last4: row.last4,
  };
}

/** At most this many tokens are kept in memory per store (then the cache starts again). */
const CACHE_MAX = 10_000;

interface LookupCache {
  /** The store's externalVersion the entries were read under. */
  version: number;
  /** By hash: the record, and when it was found by its value before a rotation, that grace period's end. */
  byHash: Map<string, { record: TokenRecord; graceUntil: number | null }>;
}

/**
 * Lookups by hash, per store object (every TokenStore of a process over one store shares them),
 * kept only where the store can tell that no other process has written since (SQLite's
 * data_version): a revocation elsewhere empties it at the next lookup, one here at once.
 * PostgreSQL stores (several instances) read the row on every request.
 */
const lookups = new WeakMap<SqlStore, LookupCache>();
/** Writes through each store object by this process (a lookup read before one is not kept). */
const writes = new WeakMap<SqlStore, number>();

/** Token rows in the durable store (SQLite or PostgreSQL), shared by every gateway instance. */
export class TokenStore {
  constructor(private readonly store: SqlStore) {}

  /** Forgets the cached lookups: called after every write of a token row. */
  private wrote(): void {
    lookups.delete(this.store);
    writes.set(this.store, (writes.get(this.store) ?? 0) + 1);
  }

  async insert(record: TokenRecord, tokenHash: string): Promise<void> {
    await this.store.execute(`INSERT INTO gateway_auth_tokens (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, [
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
      json(record.models),
      json(record.limits),
      json(record.budgets),
      json(record.metadata),
      record.blockedAt,
      record.previousUntil,
      record.last4 ?? null,
    ]);
    this.wrote();
  }

  /**
   * The token whose value hashes to `tokenHash` (revoked and expired ones included), or whose
   * value before its last rotation does while that rotation's grace period runs (`now`).
   */
  async findByHash(tokenHash: string, now: number): Promise<TokenRecord | undefined> {
    const version = this.store.externalVersion?.();
    const hit = version === undefined ? undefined : this.cached(version, tokenHash, now);
    if (hit) return hit;
    const writesBefore = writes.get(this.store) ?? 0;
    const rows = await this.store.query<Row>(`SELECT ${COLUMNS}, previous_hash FROM gateway_auth_tokens WHERE token_hash = ? OR (previous_hash = ? AND previous_until > ?)`, [
      tokenHash,
      tokenHash,
      now,
    ]);
    const row = rows[0] as (Row & { previous_hash: string | null }) | undefined;
    if (!row) return undefined;
    const record = fromRow(row);
    if (version !== undefined && (writes.get(this.store) ?? 0) === writesBefore) {
      let cache = lookups.get(this.store);
      if (!cache || cache.version !== version || cache.byHash.size >= CACHE_MAX) lookups.set(this.store, (cache = { version, byHash: new Map() }));
      cache.byHash.set(tokenHash, { record, graceUntil: row.token_hash === tokenHash ? null : record.previousUntil });
    }
    return record;
  }

  /**
   * findByHash's answer when this process holds it and nothing has been written to the store
   * since it was read (no promise, no query); undefined: ask findByHash.
   */
  findCachedByHash(tokenHash: string, now: number): TokenRecord | undefined {
    const version = this.store.externalVersion?.();
    return version === undefined ? undefined : this.cached(version, tokenHash, now);
  }

  private cached(version: number, tokenHash: string, now: number): TokenRecord | undefined {
    const cache = lookups.get(this.store);
    const hit = cache?.version === version ? cache.byHash.get(tokenHash) : undefined;
    // Found by its value before a rotation: only while that rotation's grace period runs.
    return hit && (hit.graceUntil === null || hit.graceUntil > now) ? hit.record : undefined;
  }

  /** Sets or clears blocked_at; resolves with the record as it now is. */
  async setBlocked(id: string, blockedAt: number | null): Promise<TokenRecord | undefined> {
    await this.store.execute('UPDATE gateway_auth_tokens SET blocked_at = ? WHERE id = ?', [blockedAt, id]);
    this.wrote();
    return this.get(id);
  }

  /**
   * Writes the editable fields of a key (name, models, limits, budgets, metadata, expires_at) as
   * `record` holds them, unless it was revoked meanwhile; resolves with the record as it now is
   * (undefined: unknown). Every lookup after it sees the change at once.
   */
  async update(record: TokenRecord): Promise<TokenRecord | undefined> {
    await this.store.execute('UPDATE gateway_auth_tokens SET name = ?, models = ?, limits = ?, budgets = ?, metadata = ?, expires_at = ? WHERE id = ? AND revoked_at IS NULL', [
      record.name,
      json(record.models),
      json(record.limits),
      json(record.budgets),
      json(record.metadata),
      record.expiresAt,
      record.id,
    ]);
    this.wrote();
    return this.get(record.id);
  }

  async get(id: string): Promise<TokenRecord | undefined> {
    const rows = await this.store.query<Row>(`SELECT ${COLUMNS} FROM gateway_auth_tokens WHERE id = ?`, [id]);
    return rows[0] ? fromRow(rows[0]) : undefined;
  }

  /** Usable tokens (not revoked, blocked or expired at `now`) with tool-server permissions of their own (at most `limit`). */
  async withPermissions(now: number, limit: number): Promise<TokenRecord[]> {
    const rows = await this.store.query<Row>(
      `SELECT ${COLUMNS} FROM gateway_auth_tokens WHERE permissions IS NOT NULL AND revoked_at IS NULL AND blocked_at IS NULL AND (expires_at IS NULL OR expires_at > ?) ORDER BY created_at DESC, id LIMIT ${Math.floor(limit)}`,
      [now],
    );
    return rows.map(fromRow);
  }

  /** How many usable tokens have no tool-server permissions (they may use every server their scopes open). */
  async countWithoutPermissions(now: number): Promise<number> {
    const rows = await this.store.query<{ n: number | string }>(
      'SELECT COUNT(*) AS n FROM gateway_auth_tokens WHERE permissions IS NULL AND revoked_at IS NULL AND blocked_at IS NULL AND (expires_at IS NULL OR expires_at > ?)',
      [now],
    );
    return Number(rows[0]?.n ?? 0);
  }

  /**
   * One page of the key list in one query: newest first (asc: oldest first), ties by id, the keys
   * of `team` only, those `search` finds, from the one after `after` (keyset on (created_at, id)),
   * `limit` of them with has_more. `after` not in that list: { missingAfter: true }.
   */
  async page(q: TokenPageQuery): Promise<{ records: TokenRecord[]; hasMore: boolean } | { missingAfter: true }> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (q.team !== undefined) {
      where.push('team = ?');
      params.push(q.team);
    }
    if (q.search) {
      const pattern = `%${likeText(q.search)}%`;
      if (this.store.dialect === 'postgres' && !q.search.includes(SEARCH_SEPARATOR)) {
        where.push(`${SEARCH_TEXT} LIKE ? ESCAPE '\\'`);
        params.push(pattern);
      } else {
        where.push(`(${SEARCHED.map((c) => `LOWER(${c}) LIKE ? ESCAPE '\\'`).join(' OR ')})`);
        for (let i = 0; i < SEARCHED.length; i++) params.push(pattern);
      }
    }
    if (q.after !== undefined) {
      const rows = await this.store.query<{ created_at: number | string }>(
        `SELECT created_at FROM gateway_auth_tokens WHERE id = ?${where.length ? ` AND ${where.join(' AND ')}` : ''}`,
        [q.after, ...params],
      );
      if (!rows[0]) return { missingAfter: true };
      // A row-value comparison: the index on (created_at, id) starts the scan right there (an OR of the two reads from the list's top).
      where.push(`(created_at, id) ${q.order === 'asc' ? '>' : '<'} (?, ?)`);
      params.push(Number(rows[0].created_at), q.after);
    }
    const dir = q.order === 'asc' ? 'ASC' : 'DESC';
    const limit = q.limit === undefined ? '' : ` LIMIT ${Math.floor(q.limit) + 1}`;
    const rows = await this.store.query<Row>(
      `SELECT ${COLUMNS} FROM gateway_auth_tokens${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at ${dir}, id ${dir}${limit}`,
      params,
    );
    const hasMore = q.limit !== undefined && rows.length > q.limit;
    return { records: (hasMore ? rows.slice(0, q.limit) : rows).map(fromRow), hasMore };
  }

  async list(): Promise<TokenRecord[]> {
    const rows = await this.store.query<Row>(`SELECT ${COLUMNS} FROM gateway_auth_tokens ORDER BY created_at DESC, id`);
    return rows.map(fromRow);
  }

  /** Sets revoked_at once; resolves with the record as it now is. */
  async revoke(id: string, now: number): Promise<TokenRecord | undefined> {
    await this.store.execute('UPDATE gateway_auth_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL', [now, id]);
    this.wrote();
    return this.get(id);
  }

  /**
   * Replaces the stored hash; the old value keeps working until `previousUntil` (null: it stops
   * at once). False when the token cannot be rotated.
   */
  async rotate(id: string, newHash: string, now: number, expiresAt: number | null, previousUntil: number | null, last4: string | null = null): Promise<boolean> {
    // previous_hash takes the hash being replaced (the right side reads the row before the update).
    const previous = previousUntil === null ? 'previous_hash = NULL, previous_until = NULL' : 'previous_hash = token_hash, previous_until = ?';
    const changed = await this.store.execute(
      `UPDATE gateway_auth_tokens SET ${previous}, token_hash = ?, last4 = ?, rotated_at = ?, expires_at = ?
       WHERE id = ? AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?)`,
      [...(previousUntil === null ? [] : [previousUntil]), newHash, last4, now, expiresAt, id, now],
    );
    this.wrote();
    return changed === 1;
  }
}
