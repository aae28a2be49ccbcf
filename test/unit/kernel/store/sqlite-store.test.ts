import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SqliteStore } from '../../../../src/kernel/store/sqlite/sqlite-store.js';

describe('the SQLite store connection', () => {
  it('is in WAL mode with statement journals and temporary tables in memory (no temp file per multi-row INSERT)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sqlite-store-'));
    const store = new SqliteStore(join(dir, 'gateway.db'));
    try {
      expect(await store.query('PRAGMA journal_mode')).toEqual([{ journal_mode: 'wal' }]);
      // 2 = MEMORY (0 would be the compile-time default, 1 FILE)
      expect(await store.query('PRAGMA temp_store')).toEqual([{ temp_store: 2 }]);
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
