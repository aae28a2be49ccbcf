import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { KEY_SLOT_MIGRATIONS, SqlParallelSlots } from '../../../../src/features/governance/keys/sql-parallel-slots.js';
import { PostgresStore } from '../../../../src/kernel/store/postgres/postgres-store.js';
import { SqliteStore } from '../../../../src/kernel/store/sqlite/sqlite-store.js';
import type { SqlStore } from '../../../../src/kernel/store/sql-store.js';
import { dropSharedState, PG_URL } from '../../../helpers/shared-stores.js';

const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Two instances' slots over one store (PostgreSQL: two pools on one schema; SQLite: one file). */
async function twoInstances(kind: 'sqlite' | 'postgres', ttlMs: number): Promise<[SqlParallelSlots, SqlParallelSlots]> {
  let stores: SqlStore[];
  if (kind === 'postgres') {
    const schema = `test_slots_${randomBytes(5).toString('hex')}`;
    const pgs = [new PostgresStore(PG_URL, schema), new PostgresStore(PG_URL, schema)];
    for (const s of pgs) await s.open();
    stores = pgs;
    cleanups.push(async () => {
      for (const s of pgs) await s.close();
      await dropSharedState('postgres', '', schema);
    });
  } else {
    const dir = mkdtempSync(join(tmpdir(), 'slots-'));
    const sqlite = new SqliteStore(join(dir, 'gateway.db'));
    stores = [sqlite, sqlite];
    cleanups.push(async () => {
      await sqlite.close();
      rmSync(dir, { recursive: true, force: true });
    });
  }
  for (const s of stores) await s.migrate(KEY_SLOT_MIGRATIONS);
  const slots = stores.map((s) => new SqlParallelSlots(s, ttlMs)) as [SqlParallelSlots, SqlParallelSlots];
  cleanups.push(async () => slots.forEach((s) => s.close()));
  return slots;
}

describe.each(['sqlite', 'postgres'] as const)('maxParallel slots in the SQL store (%s)', (kind) => {
  it('two instances share one key’s slots: 40 concurrent acquires at max 10 take exactly 10; releases free them', async () => {
    const [a, b] = await twoInstances(kind, 30_000);
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).acquire('k1', 10)));
    expect(results.filter(Boolean)).toHaveLength(10);
    expect(await a.held('k1')).toBe(10);
    const mine = results.map((ok, i) => (ok ? (i % 2 ? a : b) : undefined)).filter((s): s is SqlParallelSlots => s !== undefined);
    await Promise.all(mine.map((s) => s.release('k1')));
    expect(await b.held('k1')).toBe(0);
    expect(await a.acquire('k1', 10)).toBe(true);
    await a.release('k1');
  });

  it('the slots of an instance that stops (no heartbeat) free themselves after the ttl; a live one keeps its own', async () => {
    const [a, b] = await twoInstances(kind, 300);
    expect(await a.acquire('k2', 2)).toBe(true);
    expect(await b.acquire('k2', 2)).toBe(true);
    expect(await a.acquire('k2', 2)).toBe(false);
    a.close(); // a dies holding its slot
    await new Promise((r) => setTimeout(r, 700));
    expect(await b.held('k2')).toBe(1);
    expect(await b.acquire('k2', 2)).toBe(true);
    expect(await b.acquire('k2', 2)).toBe(false);
  });
});
