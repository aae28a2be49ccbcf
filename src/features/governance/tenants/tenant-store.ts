import type { Migration, SqlExecutor, SqlStore } from '../../../kernel/store/sql-store.js';

/** The kinds of objects the admin API keeps: organisations, teams, users and budgets. */
export type TenantKind = 'organization' | 'team' | 'user' | 'budget';

/** One object created through the admin API, as stored. */
export interface TenantRow {
  kind: TenantKind;
  id: string;
  /** What the object hangs from: a team's organisation, a user's team, a budget's `scope:subject`. */
  parent: string | null;
  /** The object's fields (JSON). */
  data: Record<string, unknown>;
  /** Unix milliseconds. */
  createdAt: number;
  updatedAt: number;
}

export const TENANT_MIGRATIONS: Migration[] = [
  {
    id: 'tenants-001-create',
    statements: [
      `CREATE TABLE gateway_tenants (
        kind TEXT NOT NULL,
        id TEXT NOT NULL,
        parent TEXT,
        data TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL,
        PRIMARY KEY (kind, id)
      )`,
      'CREATE INDEX gateway_tenants_parent ON gateway_tenants (kind, parent)',
    ],
  },
];

interface Row {
  kind: string;
  id: string;
  parent: string | null;
  data: string;
  created_at: number | string;
  updated_at: number | string;
}

const COLUMNS = 'kind, id, parent, data, created_at, updated_at';

function fromRow(row: Row): TenantRow {
  return {
    kind: row.kind as TenantKind,
    id: row.id,
    parent: row.parent,
    data: JSON.parse(row.data) as Record<string, unknown>,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

/** Admin API objects in the durable store (SQLite or PostgreSQL), shared by every instance. */
export class TenantStore {
  constructor(readonly store: SqlStore) {}

  /** Runs `fn` in one transaction (checks and writes land together). */
  transaction<T>(fn: (tx: TenantTx) => Promise<T>): Promise<T> {
    return this.store.transaction((tx) => fn(new TenantTx(tx)));
  }

  async get(kind: TenantKind, id: string): Promise<TenantRow | undefined> {
    return new TenantTx(this.store).get(kind, id);
  }

  /** Every object of a kind, newest first. */
  async list(kind: TenantKind): Promise<TenantRow[]> {
    const rows = await this.store.query<Row>(`SELECT ${COLUMNS} FROM gateway_tenants WHERE kind = ? ORDER BY created_at DESC, id DESC`, [kind]);
    return rows.map(fromRow);
  }
}

/** The store's statements inside (or outside) a transaction. */
export class TenantTx {
  constructor(private readonly db: SqlExecutor) {}

  /** One object; in a PostgreSQL transaction its row stays locked until the end (SQLite's transactions are serial anyway). */
  async get(kind: TenantKind, id: string, lock = false): Promise<TenantRow | undefined> {
    const forUpdate = lock && this.db.dialect === 'postgres' ? ' FOR UPDATE' : '';
    const rows = await this.db.query<Row>(`SELECT ${COLUMNS} FROM gateway_tenants WHERE kind = ? AND id = ?${forUpdate}`, [kind, id]);
    return rows[0] ? fromRow(rows[0]) : undefined;
  }

  /** Ids of the objects of `kind` that hang from `parent`. */
  async children(kind: TenantKind, parent: string): Promise<string[]> {
    const rows = await this.db.query<{ id: string }>('SELECT id FROM gateway_tenants WHERE kind = ? AND parent = ? ORDER BY id', [kind, parent]);
    return rows.map((r) => r.id);
  }

  async insert(row: TenantRow): Promise<void> {
    await this.db.execute(`INSERT INTO gateway_tenants (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)`, [
      row.kind,
      row.id,
      row.parent,
      JSON.stringify(row.data),
      row.createdAt,
      row.updatedAt,
    ]);
  }

  async update(row: TenantRow): Promise<void> {
    await this.db.execute('UPDATE gateway_tenants SET parent = ?, data = ?, updated_at = ? WHERE kind = ? AND id = ?', [
      row.parent,
      JSON.stringify(row.data),
      row.updatedAt,
      row.kind,
      row.id,
    ]);
  }

  async delete(kind: TenantKind, id: string): Promise<number> {
    return this.db.execute('DELETE FROM gateway_tenants WHERE kind = ? AND id = ?', [kind, id]);
  }
}
