import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { MIGRATIONS_TABLE, type Migration, type SqlExecutor, type SqlStore } from '../sql-store.js';

type Db = Database.Database;

/** Binds JS values the way SQLite takes them (booleans as 0/1, undefined as NULL). */
function bindable(params: unknown[]): unknown[] {
  return params.map((p) => (p === undefined ? null : typeof p === 'boolean' ? (p ? 1 : 0) : p));
}

/**
 * The embedded store: one better-sqlite3 connection (WAL). Calls are synchronous underneath;
 * a transaction holds a lock so that no other call interleaves with it.
 */
/** How long a statement waits for another connection's lock (SQLite's busy timeout). */
const BUSY_TIMEOUT_MS = 10_000;

/** Runs `fn`, again while SQLite answers that the file is busy, for at most BUSY_TIMEOUT_MS. */
function untilFree<T>(fn: () => T): T {
  const until = Date.now() + BUSY_TIMEOUT_MS;
  for (;;) {
    try {
      return fn();
    } catch (err) {
      const code = (err as { code?: string }).code ?? '';
      if (!code.startsWith('SQLITE_BUSY') || Date.now() >= until) throw err;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 25);
    }
  }
}

export class SqliteStore implements SqlStore {
  readonly dialect = 'sqlite' as const;
  private readonly db: Db;
  private lock: Promise<void> = Promise.resolve();
  private readonly statements = new Map<string, Database.Statement>();

  constructor(path: string) {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    this.db = new Database(path, { timeout: BUSY_TIMEOUT_MS });
    // Workers of a cluster open one file at once: switching it to WAL needs a lock SQLite does not
    // wait for, so a busy answer there is tried again (start-up only).
    untilFree(() => this.db.pragma('journal_mode = WAL'));
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('foreign_keys = ON');
  }

  private prepare(sql: string): Database.Statement {
    let stmt = this.statements.get(sql);
    if (!stmt) {
      stmt = this.db.prepare(sql);
      this.statements.set(sql, stmt);
    }
    return stmt;
  }

  private runQuery<T>(sql: string, params: unknown[]): T[] {
    const stmt = this.prepare(sql);
    return (stmt.reader ? stmt.all(...bindable(params)) : (stmt.run(...bindable(params)), [])) as T[];
  }

  private runExecute(sql: string, params: unknown[]): number {
    return this.prepare(sql).run(...bindable(params)).changes;
  }

  async query<T = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> {
    await this.lock;
    return this.runQuery<T>(sql, params);
  }

  async execute(sql: string, params: unknown[] = []): Promise<number> {
    await this.lock;
    return this.runExecute(sql, params);
  }

  async transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    const previous = this.lock;
    let release!: () => void;
    this.lock = new Promise<void>((resolve) => (release = resolve));
    await previous;
    const tx: SqlExecutor = {
      dialect: 'sqlite',
      query: async <R>(sql: string, params: unknown[] = []) => this.runQuery<R>(sql, params),
      execute: async (sql: string, params: unknown[] = []) => this.runExecute(sql, params),
    };
    this.db.exec('BEGIN IMMEDIATE');
    try {
      const result = await fn(tx);
      this.db.exec('COMMIT');
      return result;
    } catch (err) {
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      throw err;
    } finally {
      release();
    }
  }

  async migrate(migrations: Migration[]): Promise<void> {
    await this.execute(`CREATE TABLE IF NOT EXISTS ${MIGRATIONS_TABLE} (id TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)`);
    for (const migration of migrations) {
      await this.transaction(async (tx) => {
        const done = await tx.query(`SELECT id FROM ${MIGRATIONS_TABLE} WHERE id = ?`, [migration.id]);
        if (done.length) return;
        for (const statement of migration.statements) this.db.exec(statement);
        await tx.execute(`INSERT INTO ${MIGRATIONS_TABLE} (id, applied_at) VALUES (?, ?)`, [migration.id, Math.floor(Date.now() / 1000)]);
      });
    }
  }

  async close(): Promise<void> {
    await this.lock;
    if (this.db.open) {
      this.db.pragma('wal_checkpoint(TRUNCATE)');
      this.db.close();
    }
  }
}
