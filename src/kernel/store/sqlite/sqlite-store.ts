import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { MIGRATIONS_TABLE, type Migration, type MigrationOutcome, type SqlBatchWriter, type SqlExecutor, type SqlStore } from '../sql-store.js';
import { bindable } from './bindable.js';
import { CONNECTION_PRAGMAS, SqliteWriteThread } from './sqlite-write-thread.js';

type Db = Database.Database;

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
  /** Transactions waiting for the next group commit. */
  private readonly queued: Array<{ fn: (tx: SqlExecutor) => Promise<unknown>; resolve: (value: unknown) => void; reject: (err: unknown) => void }> = [];
  private flushScheduled = false;
  private dataVersion: Database.Statement | undefined;
  /**
   * data_version read inside the group transaction running now (undefined: none read, or no
   * group running): while the group holds the file's write lock no other connection commits,
   * so one read serves every transaction of the group.
   */
  private groupVersion: number | undefined;
  private turnVersion: number | undefined;
  private inGroup = false;
  /** What a transaction's function runs its statements through (inside the group's transaction). */
  private readonly tx: SqlExecutor = {
    dialect: 'sqlite',
    query: async <R>(sql: string, params: unknown[] = []) => this.runQuery<R>(sql, params),
    execute: async (sql: string, params: unknown[] = []) => this.runExecute(sql, params),
  };

  private writeThread: SqliteWriteThread | undefined;

  constructor(private readonly path: string) {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    this.db = new Database(path, { timeout: BUSY_TIMEOUT_MS });
    // Workers of a cluster open one file at once: switching it to WAL needs a lock SQLite does not
    // wait for, so a busy answer there is tried again (start-up only).
    untilFree(() => this.db.pragma('journal_mode = WAL'));
    for (const pragma of CONNECTION_PRAGMAS) this.db.pragma(pragma);
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
    // One array binds every anonymous parameter (a ledger batch binds thousands: no spread onto the stack).
    return (stmt.reader ? stmt.all(bindable(params)) : (stmt.run(bindable(params)), [])) as T[];
  }

  private runExecute(sql: string, params: unknown[]): number {
    return this.prepare(sql).run(bindable(params)).changes;
  }

  async query<T = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> {
    await this.lock;
    return this.runQuery<T>(sql, params);
  }

  async execute(sql: string, params: unknown[] = []): Promise<number> {
    await this.lock;
    return this.runExecute(sql, params);
  }

  /**
   * Group commit: transactions asked for in the same turn of the event loop run one after
   * another inside one BEGIN IMMEDIATE … COMMIT, each in its own savepoint (one that throws is
   * rolled back alone and rejects alone). Each caller's promise settles once the group's COMMIT
   * has landed, so what a caller is told is durable exactly as before; the file's write lock and
   * the commit's WAL write are paid once per group instead of once per transaction.
   */
  transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queued.push({ fn, resolve: resolve as (value: unknown) => void, reject });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => void this.flush());
      }
    });
  }

  private async flush(): Promise<void> {
    this.flushScheduled = false;
    const previous = this.lock;
    let release!: () => void;
    this.lock = new Promise<void>((resolve) => (release = resolve));
    await previous;
    const group = this.queued.splice(0);
    const outcomes: Array<{ ok: true; value: unknown } | { ok: false; err: unknown }> = [];
    try {
      this.db.exec('BEGIN IMMEDIATE');
      this.inGroup = true;
      this.groupVersion = undefined;
    } catch (err) {
      release();
      for (const item of group) item.reject(err);
      return;
    }
    try {
      for (const item of group) {
        this.db.exec('SAVEPOINT grouped');
        try {
          outcomes.push({ ok: true, value: await item.fn(this.tx) });
          this.db.exec('RELEASE grouped');
        } catch (err) {
          outcomes.push({ ok: false, err });
          if (this.db.inTransaction) this.db.exec('ROLLBACK TO grouped; RELEASE grouped');
        }
      }
      this.db.exec('COMMIT');
      this.inGroup = false;
    } catch (err) {
      this.inGroup = false;
      // The group could not be committed: none of it landed.
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      release();
      for (const item of group) item.reject(err);
      return;
    }
    release();
    group.forEach((item, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) item.resolve(outcome.value);
      else item.reject(outcome.err);
    });
  }

  /**
   * Inside a group transaction: read once per group (no other connection can commit while it
   * holds the write lock). Outside: read once per turn of the event loop (the requests one turn
   * serves share one reading, at most that turn old).
   */
  externalVersion(): number {
    if (this.inGroup) return (this.groupVersion ??= this.readDataVersion());
    if (this.turnVersion === undefined) {
      this.turnVersion = this.readDataVersion();
      setImmediate(() => (this.turnVersion = undefined));
    }
    return this.turnVersion;
  }

  private readDataVersion(): number {
    this.dataVersion ??= this.db.prepare('PRAGMA data_version').pluck();
    return this.dataVersion.get() as number;
  }

  async migrate(migrations: Migration[]): Promise<MigrationOutcome> {
    const outcome: MigrationOutcome = { skipped: [] };
    await this.execute(`CREATE TABLE IF NOT EXISTS ${MIGRATIONS_TABLE} (id TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)`);
    for (const migration of migrations) {
      if (migration.dialect && migration.dialect !== this.dialect) continue;
      // Each migration in a savepoint of its own: one that fails is rolled back alone.
      const applied = this.transaction(async (tx) => {
        const done = await tx.query(`SELECT id FROM ${MIGRATIONS_TABLE} WHERE id = ?`, [migration.id]);
        if (done.length) return;
        for (const statement of migration.statements) this.db.exec(statement);
        await tx.execute(`INSERT INTO ${MIGRATIONS_TABLE} (id, applied_at) VALUES (?, ?)`, [migration.id, Math.floor(Date.now() / 1000)]);
      });
      if (!migration.optional) await applied;
      else await applied.catch((err: Error) => outcome.skipped.push({ id: migration.id, without: migration.optional!.without, error: err.message }));
    }
    return outcome;
  }

  /** A thread with its own connection to the file (none for an in-memory database, which no other connection can open). */
  batchWriter(): SqlBatchWriter | undefined {
    if (this.path === ':memory:' || !this.db.open) return undefined;
    return (this.writeThread ??= new SqliteWriteThread(this.path, BUSY_TIMEOUT_MS));
  }

  async close(): Promise<void> {
    await this.writeThread?.close();
    this.writeThread = undefined;
    await this.lock;
    if (this.db.open) {
      this.db.pragma('wal_checkpoint(TRUNCATE)');
      this.db.close();
    }
  }
}
