import pg from 'pg';
import { badRequest } from '../../errors/request-error.js';
import { MIGRATIONS_TABLE, type Migration, type MigrationOutcome, type SqlExecutor, type SqlStore } from '../sql-store.js';

/** `?` placeholders -> `$1, $2, ...` (no `?` appears inside the gateway's SQL literals). */
function toPositional(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

/**
 * The parameters, refused when a text among them holds a NUL: PostgreSQL's text cannot (it fails
 * the statement), so no stored value has one and a value a caller sent with one names nothing.
 * A 400 for the request that carried it, as SQLite's store answers such a lookup "not found".
 */
function storable(params: unknown[]): unknown[] {
  for (const p of params) if (typeof p === 'string' && p.includes('\0')) throw badRequest('A value of this request holds a NUL character, which names nothing the gateway keeps.');
  return params;
}

/** A schema name as a quoted SQL identifier. */
function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

// BIGINT columns come back as numbers (timestamps and counters fit in 2^53).
pg.types.setTypeParser(20, (v: string) => Number(v));

/** The shared store for several gateway instances: a pg Pool, optionally inside one schema. */
export class PostgresStore implements SqlStore {
  readonly dialect = 'postgres' as const;
  private readonly pool: pg.Pool;
  private readonly schema: string | undefined;

  constructor(url: string, schema?: string) {
    this.schema = schema;
    // The schema is every connection's search path from its start-up packet on; migrate() creates it.
    const options = schema ? `-c search_path=${quoteIdent(schema)}` : undefined;
    this.pool = new pg.Pool({ connectionString: url, max: 10, ...(options ? { options } : {}) });
    this.pool.on('error', () => undefined);
  }

  /** Checks the connection and creates the schema when it is missing (several instances may race: that is fine). */
  async open(): Promise<void> {
    if (!this.schema) {
      await this.pool.query('SELECT 1');
      return;
    }
    await this.pool.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(this.schema)}`).catch((err: { code?: string }) => {
      // Two instances creating it at once: one wins, the other sees a duplicate.
      if (err.code !== '42P06' && err.code !== '23505') throw err;
    });
  }

  private client(): Promise<pg.PoolClient> {
    return this.pool.connect();
  }

  private async withClient<T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.client();
    try {
      return await fn(client);
    } finally {
      client.release();
    }
  }

  async query<T = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> {
    return (await this.pool.query(toPositional(sql), storable(params))).rows as T[];
  }

  async execute(sql: string, params: unknown[] = []): Promise<number> {
    return (await this.pool.query(toPositional(sql), storable(params))).rowCount ?? 0;
  }

  async transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    return this.withClient(async (client) => {
      const tx: SqlExecutor = {
        dialect: 'postgres',
        query: async <R>(sql: string, params: unknown[] = []) => (await client.query(toPositional(sql), storable(params))).rows as R[],
        execute: async (sql: string, params: unknown[] = []) => (await client.query(toPositional(sql), storable(params))).rowCount ?? 0,
      };
      await client.query('BEGIN');
      try {
        const result = await fn(tx);
        await client.query('COMMIT');
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      }
    });
  }

  async migrate(migrations: Migration[]): Promise<MigrationOutcome> {
    const outcome: MigrationOutcome = { skipped: [] };
    await this.withClient(async (client) => {
      // One instance migrates at a time; the others wait, then find the work done.
      await client.query('SELECT pg_advisory_lock(727274)');
      try {
        if (this.schema) await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(this.schema)}`);
        await client.query(`CREATE TABLE IF NOT EXISTS ${MIGRATIONS_TABLE} (id TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)`);
        for (const migration of migrations) {
          if (migration.dialect && migration.dialect !== this.dialect) continue;
          const done = await client.query(`SELECT id FROM ${MIGRATIONS_TABLE} WHERE id = $1`, [migration.id]);
          if (done.rowCount) continue;
          await client.query('BEGIN');
          try {
            for (const statement of migration.statements) await client.query(statement);
            await client.query(`INSERT INTO ${MIGRATIONS_TABLE} (id, applied_at) VALUES ($1, $2)`, [migration.id, Math.floor(Date.now() / 1000)]);
            await client.query('COMMIT');
          } catch (err) {
            await client.query('ROLLBACK').catch(() => undefined);
            if (!migration.optional) throw err;
            outcome.skipped.push({ id: migration.id, without: migration.optional.without, error: (err as Error).message });
          }
        }
      } finally {
        await client.query('SELECT pg_advisory_unlock(727274)').catch(() => undefined);
      }
    });
    return outcome;
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
