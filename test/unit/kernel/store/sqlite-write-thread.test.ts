import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../../../src/kernel/store/sqlite/sqlite-store.js';

/**
 * SqliteStore.batchWriter(): batches of statements run on a worker thread with its own
 * connection to the file, each batch in one transaction; what it wrote is read through the store.
 */
describe('the SQLite write thread', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  async function storeOnFile(): Promise<SqliteStore> {
    const dir = mkdtempSync(join(tmpdir(), 'write-thread-'));
    const store = new SqliteStore(join(dir, 'gateway.db'));
    cleanups.push(async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    });
    await store.execute('CREATE TABLE t (id TEXT PRIMARY KEY, n INTEGER, flag INTEGER, note TEXT)');
    return store;
  }

  it('writes a batch in one transaction; the store reads it at once after', async () => {
    const store = await storeOnFile();
    const writer = store.batchWriter()!;
    expect(writer).toBeDefined();
    await writer.run([
      ['INSERT INTO t (id, n, flag, note) VALUES (?, ?, ?, ?), (?, ?, ?, ?)', ['a', 1, true, 'é 漢', 'b', 2, false, undefined]],
      ['UPDATE t SET n = n + ? WHERE id = ?', [10, 'a']],
    ]);
    expect(await store.query('SELECT id, n, flag, note FROM t ORDER BY id')).toEqual([
      { id: 'a', n: 11, flag: 1, note: 'é 漢' },
      { id: 'b', n: 2, flag: 0, note: null },
    ]);
  });

  it('a batch with a failing statement lands none of it and rejects with its error; the next batch is written', async () => {
    const store = await storeOnFile();
    const writer = store.batchWriter()!;
    await writer.run([['INSERT INTO t (id, n) VALUES (?, ?)', ['a', 1]]]);
    const failing = writer.run([
      ['INSERT INTO t (id, n) VALUES (?, ?)', ['b', 2]],
      ['INSERT INTO t (id, n) VALUES (?, ?)', ['a', 3]],
    ]);
    await expect(failing).rejects.toMatchObject({ code: 'SQLITE_CONSTRAINT_PRIMARYKEY' });
    await writer.run([['INSERT INTO t (id, n) VALUES (?, ?)', ['c', 4]]]);
    expect((await store.query<{ id: string }>('SELECT id FROM t ORDER BY id')).map((r) => r.id)).toEqual(['a', 'c']);
  });

  it('batches sent at once all land, in order; close waits for them', async () => {
    const store = await storeOnFile();
    const writer = store.batchWriter()!;
    const sent = Array.from({ length: 50 }, (_, i) => writer.run([['INSERT INTO t (id, n) VALUES (?, ?)', [`k${String(i).padStart(2, '0')}`, i]]]));
    await store.close();
    await Promise.all(sent);
    const reopened = new SqliteStore((store as unknown as { path: string }).path);
    cleanups.push(() => reopened.close());
    expect((await reopened.query<{ n: number }>('SELECT n FROM t ORDER BY id')).map((r) => r.n)).toEqual(Array.from({ length: 50 }, (_, i) => i));
  });

  it('an in-memory store has no write thread (no other connection can open it)', async () => {
    const store = new SqliteStore(':memory:');
    cleanups.push(() => store.close());
    expect(store.batchWriter()).toBeUndefined();
  });
});
