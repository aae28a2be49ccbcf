/**
 * The one interface to the gateway's durable state (tokens, files, batches...). SQL is written
 * once, portably: `?` placeholders, TEXT / INTEGER / BIGINT / DOUBLE PRECISION columns, and
 * `INSERT ... ON CONFLICT`. SQLite (embedded default) and PostgreSQL (several instances)
 * implement it.
 */
export interface SqlStore {
  readonly dialect: 'sqlite' | 'postgres';
  /** Rows of a SELECT (or of a statement with RETURNING). */
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Runs a statement; resolves with the number of rows it changed. */
  execute(sql: string, params?: unknown[]): Promise<number>;
  /** Runs `fn` in one transaction: all of it lands, or none. */
  transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  /**
   * Applies the migrations not applied yet, in order, each once (safe across instances); those
   * of another dialect are passed over. Answers the optional ones it could not apply.
   */
  migrate(migrations: Migration[]): Promise<MigrationOutcome>;
  close(): Promise<void>;
  /**
   * A number that changes whenever another connection (another process sharing the file) has
   * committed since it was last read, or absent where the store cannot tell (PostgreSQL: read
   * the rows). Writes through this store object do not change it, so a reader that keeps rows
   * in memory on the strength of it must also see its own process's writes. Inside a
   * transaction it is exact; outside one it may be one turn of the event loop old.
   */
  externalVersion?(): number;
  /**
   * A writer off the thread that serves requests, on a connection of its own, where the store
   * has one (SQLite on a file); absent or undefined: write through the store. For writes no
   * request reads back at once: another connection's commits move externalVersion.
   */
  batchWriter?(): SqlBatchWriter | undefined;
}

export type SqlExecutor = Pick<SqlStore, 'query' | 'execute' | 'dialect'>;

/** One statement and its `?` parameters. */
export type SqlStatement = readonly [sql: string, params: unknown[]];

/** Runs batches of writes, each batch in one transaction: all of it lands, or none. */
export interface SqlBatchWriter {
  run(batch: readonly SqlStatement[]): Promise<void>;
}

export interface Migration {
  /** Unique and stable, e.g. "tokens-001-create". */
  id: string;
  statements: string[];
  /** Applied by a store of this dialect only (the other passes it over and does not record it); absent: by both. */
  dialect?: SqlStore['dialect'];
  /**
   * A migration the gateway works without (e.g. an index that needs a database extension the
   * store's role may not be allowed to create). When one of its statements fails, it is rolled
   * back alone and not recorded, the migrations after it go on, and migrate() answers it among
   * `skipped` (the next migrate(), at the next start, tries it again). `without` says what the
   * gateway does without it, for the warning. Absent: a failure stops migrate() with its error.
   */
  optional?: { without: string };
}

/** What migrate() could not apply. */
export interface MigrationOutcome {
  /** The optional migrations that failed, with their error's message (not recorded: tried again next time). */
  skipped: Array<{ id: string; without: string; error: string }>;
}

export const MIGRATIONS_TABLE = 'gateway_migrations';
