import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { MIGRATIONS_TABLE } from '../sql-store.js';
/** Binds JS values the way SQLite takes them (booleans as 0/1, undefined as NULL). */
function bindable(params) {
    return params.map((p) => (p === undefined ? null : typeof p === 'boolean' ? (p ? 1 : 0) : p));
}
/**
 * The embedded store: one better-sqlite3 connection (WAL). Calls are synchronous underneath;
 * a transaction holds a lock so that no other call interleaves with it.
 */
export class SqliteStore {
    dialect = 'sqlite';
    db;
    lock = Promise.resolve();
    statements = new Map();
    constructor(path) {
        if (path !== ':memory:')
            mkdirSync(dirname(path), { recursive: true });
        this.db = new Database(path);
        this.db.pragma('journal_mode = WAL');
        this.db.pragma('synchronous = NORMAL');
        this.db.pragma('busy_timeout = 5000');
        this.db.pragma('foreign_keys = ON');
    }
    prepare(sql) {
        let stmt = this.statements.get(sql);
        if (!stmt) {
            stmt = this.db.prepare(sql);
            this.statements.set(sql, stmt);
        }
        return stmt;
    }
    runQuery(sql, params) {
        const stmt = this.prepare(sql);
        return (stmt.reader ? stmt.all(...bindable(params)) : (stmt.run(...bindable(params)), []));
    }
    runExecute(sql, params) {
        return this.prepare(sql).run(...bindable(params)).changes;
    }
    async query(sql, params = []) {
        await this.lock;
        return this.runQuery(sql, params);
    }
    async execute(sql, params = []) {
        await this.lock;
        return this.runExecute(sql, params);
    }
    async transaction(fn) {
        const previous = this.lock;
        let release;
        this.lock = new Promise((resolve) => (release = resolve));
        await previous;
        const tx = {
            dialect: 'sqlite',
            query: async (sql, params = []) => this.runQuery(sql, params),
            execute: async (sql, params = []) => this.runExecute(sql, params),
        };
        this.db.exec('BEGIN IMMEDIATE');
        try {
            const result = await fn(tx);
            this.db.exec('COMMIT');
            return result;
        }
        catch (err) {
            if (this.db.inTransaction)
                this.db.exec('ROLLBACK');
            throw err;
        }
        finally {
            release();
        }
    }
    async migrate(migrations) {
        await this.execute(`CREATE TABLE IF NOT EXISTS ${MIGRATIONS_TABLE} (id TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)`);
        for (const migration of migrations) {
            await this.transaction(async (tx) => {
                const done = await tx.query(`SELECT id FROM ${MIGRATIONS_TABLE} WHERE id = ?`, [migration.id]);
                if (done.length)
                    return;
                for (const statement of migration.statements)
                    this.db.exec(statement);
                await tx.execute(`INSERT INTO ${MIGRATIONS_TABLE} (id, applied_at) VALUES (?, ?)`, [migration.id, Math.floor(Date.now() / 1000)]);
            });
        }
    }
    async close() {
        await this.lock;
        if (this.db.open) {
            this.db.pragma('wal_checkpoint(TRUNCATE)');
            this.db.close();
        }
    }
}
//# sourceMappingURL=sqlite-store.js.map