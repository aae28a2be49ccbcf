import pg from 'pg';
import { MIGRATIONS_TABLE } from '../sql-store.js';
/** `?` placeholders -> `$1, $2, ...` (no `?` appears inside the gateway's SQL literals). */
function toPositional(sql) {
    let n = 0;
    return sql.replace(/\?/g, () => `$${++n}`);
}
// BIGINT columns come back as numbers (timestamps and counters fit in 2^53).
pg.types.setTypeParser(20, (v) => Number(v));
/** The shared store for several gateway instances: a pg Pool, optionally inside one schema. */
export class PostgresStore {
    dialect = 'postgres';
    pool;
    constructor(url, schema) {
        this.pool = new pg.Pool({ connectionString: url, max: 10 });
        this.pool.on('error', () => undefined);
        if (schema) {
            // Once per new connection: pg runs a client's queries in order, so these precede any
            // query of the checkout that follows.
            this.pool.on('connect', (client) => {
                client.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`).catch(() => undefined);
                client.query(`SET search_path TO "${schema}"`).catch(() => undefined);
            });
        }
    }
    client() {
        return this.pool.connect();
    }
    async withClient(fn) {
        const client = await this.client();
        try {
            return await fn(client);
        }
        finally {
            client.release();
        }
    }
    async query(sql, params = []) {
        return (await this.pool.query(toPositional(sql), params)).rows;
    }
    async execute(sql, params = []) {
        return (await this.pool.query(toPositional(sql), params)).rowCount ?? 0;
    }
    async transaction(fn) {
        return this.withClient(async (client) => {
            const tx = {
                dialect: 'postgres',
                query: async (sql, params = []) => (await client.query(toPositional(sql), params)).rows,
                execute: async (sql, params = []) => (await client.query(toPositional(sql), params)).rowCount ?? 0,
            };
            await client.query('BEGIN');
            try {
                const result = await fn(tx);
                await client.query('COMMIT');
                return result;
            }
            catch (err) {
                await client.query('ROLLBACK').catch(() => undefined);
                throw err;
            }
        });
    }
    async migrate(migrations) {
        await this.withClient(async (client) => {
            // One instance migrates at a time; the others wait, then find the work done.
            await client.query('SELECT pg_advisory_lock(727274)');
            try {
                await client.query(`CREATE TABLE IF NOT EXISTS ${MIGRATIONS_TABLE} (id TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)`);
                for (const migration of migrations) {
                    const done = await client.query(`SELECT id FROM ${MIGRATIONS_TABLE} WHERE id = $1`, [migration.id]);
                    if (done.rowCount)
                        continue;
                    await client.query('BEGIN');
                    try {
                        for (const statement of migration.statements)
                            await client.query(statement);
                        await client.query(`INSERT INTO ${MIGRATIONS_TABLE} (id, applied_at) VALUES ($1, $2)`, [migration.id, Math.floor(Date.now() / 1000)]);
                        await client.query('COMMIT');
                    }
                    catch (err) {
                        await client.query('ROLLBACK').catch(() => undefined);
                        throw err;
                    }
                }
            }
            finally {
                await client.query('SELECT pg_advisory_unlock(727274)').catch(() => undefined);
            }
        });
    }
    async close() {
        await this.pool.end();
    }
}
//# sourceMappingURL=postgres-store.js.map