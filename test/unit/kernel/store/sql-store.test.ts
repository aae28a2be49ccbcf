import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { SqlStore } from '../../../../src/kernel/store/sql-store.js';
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

    it('commits a transaction and supports ON CONFLICT', async () => {
      await store.transaction(async (tx) => {
        await tx.execute('INSERT INTO items (id, n) VALUES (?, ?)', ['c', 5]);
        await tx.execute('INSERT INTO items (id, n) VALUES (?, ?) ON CONFLICT (id) DO NOTHING', ['c', 6]);
      });
      expect(await store.query('SELECT n FROM items WHERE id = ?', ['c'])).toEqual([{ n: 5 }]);
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
