import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { Migration, SqlStore } from '../../../../src/kernel/store/sql-store.js';
import { migrateStore, STORE } from '../../../../src/kernel/store/store-capability.js';
import { makeServices } from '../../../helpers/services.js';
import { SqliteStore } from '../../../../src/kernel/store/sqlite/sqlite-store.js';
import { PostgresStore } from '../../../../src/kernel/store/postgres/postgres-store.js';

const PG_URL = process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

const migrations = [
  { id: 'test-001', statements: ['CREATE TABLE items (id TEXT PRIMARY KEY, n BIGINT NOT NULL, note TEXT)'] },
  { id: 'test-002', statements: ['ALTER TABLE items ADD COLUMN flag INTEGER NOT NULL DEFAULT 0'] },
];

function suite(name: string, make: () => Promise<{ store: SqlStore; again: () => SqlStore; cleanup: () => Promise<void> }>) {
  describe(`${name} store`, () => {
    let store: SqlStore;
    let again: () => SqlStore;
    let cleanup: () => Promise<void>;
    beforeAll(async () => {
      ({ store, again, cleanup } = await make());
      await store.migrate(migrations);
    });
    afterAll(async () => {
      await store.close();
      await cleanup();
    });

    it('applies each migration once, also from a second instance', async () => {
      const second = again();
      await second.migrate(migrations);
      const rows = await second.query<{ id: string }>('SELECT id FROM gateway_migrations ORDER BY id');
      expect(rows.map((r) => r.id)).toEqual(['test-001', 'test-002']);
      await second.close();
    });

    it('writes and reads rows with ? placeholders, numbers as numbers', async () => {
      expect(await store.execute('INSERT INTO items (id, n, note) VALUES (?, ?, ?)', ['a', 1732000000, null])).toBe(1);
      const rows = await store.query<{ id: string; n: number; note: string | null; flag: number }>('SELECT * FROM items WHERE id = ?', ['a']);
      expect(rows).toEqual([{ id: 'a', n: 1732000000, note: null, flag: 0 }]);
    });

    it('rolls a failed transaction back whole', async () => {
      await expect(
        store.transaction(async (tx) => {
          await tx.execute('INSERT INTO items (id, n) VALUES (?, ?)', ['b', 2]);
          await tx.execute('INSERT INTO items (id, n) VALUES (?, ?)', ['a', 3]); // duplicate key
        }),
      ).rejects.toThrow();
      expect(await store.query('SELECT id FROM items WHERE id = ?', ['b'])).toEqual([]);
    });

    it("a text parameter holding a NUL: PostgreSQL refuses it as the request's 400 (its text cannot hold one), SQLite looks it up and finds nothing", async () => {
      const lookup = () => store.query('SELECT id FROM items WHERE id = ?', ['a\0b']);
      const inTransaction = () => store.transaction((tx) => tx.query('SELECT id FROM items WHERE note = ?', ['\0']));
      const update = () => store.execute('UPDATE items SET note = ? WHERE id = ?', ['x', 'a\0']);
      if (name === 'postgres') {
        for (const refused of [lookup, inTransaction, update])
          await expect(refused()).rejects.toMatchObject({ name: 'RequestError', status: 400, message: expect.stringMatching(/NUL/) });
      } else {
        expect(await lookup()).toEqual([]);
        expect(await inTransaction()).toEqual([]);
        expect(await update()).toBe(0);
      }
    });

    it('commits a transaction and supports ON CONFLICT', async () => {
      await store.transaction(async (tx) => {
        await tx.execute('INSERT INTO items (id, n) VALUES (?, ?)', ['c', 5]);
        await tx.execute('INSERT INTO items (id, n) VALUES (?, ?) ON CONFLICT (id) DO NOTHING', ['c', 6]);
      });
      expect(await store.query('SELECT n FROM items WHERE id = ?', ['c'])).toEqual([{ n: 5 }]);
    });

    it('passes over a migration of the other dialect (not recorded) and applies one of its own', async () => {
      const other = name === 'sqlite' ? 'postgres' : 'sqlite';
      const outcome = await store.migrate([
        { id: 'test-dialect-own', dialect: store.dialect, statements: ['CREATE TABLE own_dialect (id TEXT PRIMARY KEY)'] },
        { id: 'test-dialect-other', dialect: other, statements: ['CREATE TABLE other_dialect (id TEXT PRIMARY KEY)'] },
      ]);
      expect(outcome).toEqual({ skipped: [] });
      const ids = (await store.query<{ id: string }>("SELECT id FROM gateway_migrations WHERE id LIKE 'test-dialect-%' ORDER BY id")).map((r) => r.id);
      expect(ids).toEqual(['test-dialect-own']);
      expect(await store.query('SELECT id FROM own_dialect')).toEqual([]);
      await expect(store.query('SELECT id FROM other_dialect')).rejects.toThrow();
    });

    it('rolls a failed optional migration back alone, goes on, answers it, and tries it again next time', async () => {
      const failing: Migration = {
        id: 'test-optional-fails',
        optional: { without: 'the items have no extra table' },
        // The first statement lands, the second fails: the whole migration is rolled back.
        statements: ['CREATE TABLE optional_half (id TEXT PRIMARY KEY)', 'INSERT INTO no_such_table (id) VALUES (1)'],
      };
      const after: Migration = { id: 'test-optional-after', statements: ['CREATE TABLE after_optional (id TEXT PRIMARY KEY)'] };
      const outcome = await store.migrate([failing, after]);
      expect(outcome.skipped).toEqual([{ id: 'test-optional-fails', without: 'the items have no extra table', error: expect.stringMatching(/no_such_table/) }]);
      await expect(store.query('SELECT id FROM optional_half')).rejects.toThrow();
      expect(await store.query('SELECT id FROM after_optional')).toEqual([]);
      const ids = (await store.query<{ id: string }>("SELECT id FROM gateway_migrations WHERE id LIKE 'test-optional-%' ORDER BY id")).map((r) => r.id);
      expect(ids).toEqual(['test-optional-after']);
      // Tried again (not recorded): once it can be applied, it is.
      await store.execute('CREATE TABLE no_such_table (id INTEGER)');
      expect(await store.migrate([failing, after])).toEqual({ skipped: [] });
      expect(await store.query('SELECT id FROM optional_half')).toEqual([]);
      expect(await store.query('SELECT id FROM no_such_table')).toEqual([{ id: 1 }]);
    });

    it('throws on a failed migration that is not optional, and records nothing of it', async () => {
      await expect(store.migrate([{ id: 'test-required-fails', statements: ['CREATE TABLE required_half (id TEXT)', 'INSERT INTO nowhere (id) VALUES (1)'] }])).rejects.toThrow(
        /nowhere/,
      );
      await expect(store.query('SELECT id FROM required_half')).rejects.toThrow();
      expect(await store.query("SELECT id FROM gateway_migrations WHERE id = 'test-required-fails'")).toEqual([]);
    });

    it('warns once per store of an optional migration it could not apply (migrateStore), saying what the gateway does without it', async () => {
      const services = makeServices();
      services.provide(STORE, store);
      const failing: Migration = { id: 'test-optional-warned', optional: { without: 'searches read every row' }, statements: ['INSERT INTO missing_table (id) VALUES (1)'] };
      await migrateStore(services, [failing]);
      await migrateStore(services, [failing]);
      const warnings = services.logs.records().filter((r) => r.migration === 'test-optional-warned');
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatchObject({
        level: 40,
        msg: 'store migration test-optional-warned could not be applied: searches read every row',
        err: expect.stringMatching(/missing_table/),
      });
    });
  });
}

suite('sqlite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-store-'));
  const path = join(dir, 'nested', 'gateway.db');
  return {
    store: new SqliteStore(path),
    again: () => new SqliteStore(path),
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  };
});

suite('postgres', async () => {
  const schema = `gw_test_${process.pid}_${Date.now()}`;
  return {
    store: new PostgresStore(PG_URL, schema),
    again: () => new PostgresStore(PG_URL, schema),
    cleanup: async () => {
      const client = new pg.Client({ connectionString: PG_URL });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    },
  };
});
