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
  /** Applies the migrations not applied yet, in order, each once (safe across instances). */
  migrate(migrations: Migration[]): Promise<void>;
  close(): Promise<void>;
  /**
   * A number that changes whenever another connection (another process sharing the file) has
   * committed since it was last read, or absent where the store cannot tell (PostgreSQL: read
   * the rows). Writes through this store object do not change it, so a reader that keeps rows
   * in memory on the strength of it must also see its own process's writes. Inside a
   * transaction it is exact; outside one it may be one turn of the event loop old.
   */
  externalVersion?(): number;
}

export type SqlExecutor = Pick<SqlStore, 'query' | 'execute' | 'dialect'>;

export interface Migration {
  /** Unique and stable, e.g. "tokens-001-create". */
  id: string;
  statements: string[];
}

export const MIGRATIONS_TABLE = 'gateway_migrations';
