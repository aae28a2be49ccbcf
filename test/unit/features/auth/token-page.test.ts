// The key list paged by the store's query (TokenStore.page), on SQLite and PostgreSQL: the same
// keys, in the same order, as sorting, filtering and slicing every key in memory.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../../../src/kernel/store/sqlite/sqlite-store.js';
import { PostgresStore } from '../../../../src/kernel/store/postgres/postgres-store.js';
import type { SqlStore } from '../../../../src/kernel/store/sql-store.js';
import { TOKEN_MIGRATIONS, TokenStore, type TokenPageQuery, type TokenRecord } from '../../../../src/features/auth/token-store.js';
import { PG_URL } from '../../../helpers/shared-stores.js';

const NOW = 1_800_000_000;
const TEAMS = ['red', 'blue', null];

function record(i: number): TokenRecord {
  return {
    // Ids not in creation order, several keys per second (ties are ordered by id).
    id: `tok_${((i * 7919) % 1000).toString(36).padStart(3, '0')}${i % 3 === 0 ? 'A' : 'a'}`,
    user: i % 5 === 0 ? `Pat_${i}%@Example.com` : `user${i}@example.com`,
    team: TEAMS[i % 3]!,
    email: i % 4 === 0 ? `mail${i}@corp.test` : null,
    name: i % 6 === 0 ? `Name ${i}\\x` : null,
    roles: null,
    organization: i % 7 === 0 ? 'Initech' : null,
    scopes: ['mcp'],
    permissions: null,
    createdAt: NOW + Math.floor(i / 4),
    expiresAt: null,
    revokedAt: null,
    rotatedAt: null,
    models: null,
    limits: null,
    budgets: null,
    metadata: null,
    blockedAt: null,
    previousUntil: null,
  };
}

const RECORDS = Array.from({ length: 60 }, (_, i) => record(i));

/** The list as the store should answer it, computed in memory. */
function expected(q: TokenPageQuery): string[] {
  const sorted = [...RECORDS].sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const list = q.order === 'asc' ? sorted : sorted.reverse();
  return list
    .filter((t) => q.team === undefined || t.team === q.team)
    .filter((t) => !q.search || [t.id, t.user, t.name, t.email, t.team, t.organization].some((v) => typeof v === 'string' && v.toLowerCase().includes(q.search!)))
    .map((t) => t.id);
}

/** Every page of `limit` keys, following `after`, joined. */
async function walk(tokens: TokenStore, q: TokenPageQuery, limit: number): Promise<string[]> {
  const ids: string[] = [];
  for (let after: string | undefined, pages = 0; pages < 100; pages++) {
    const page = await tokens.page({ ...q, limit, ...(after ? { after } : {}) });
    if ('missingAfter' in page) throw new Error(`after ${after} missing`);
    ids.push(...page.records.map((r) => r.id));
    expect(page.records.length).toBeLessThanOrEqual(limit);
    if (!page.hasMore) return ids;
    expect(page.records.length).toBe(limit);
    after = page.records.at(-1)!.id;
  }
  throw new Error('too many pages');
}

const QUERIES: TokenPageQuery[] = [
  { order: 'desc' },
  { order: 'asc' },
  { order: 'desc', team: 'red' },
  { order: 'asc', search: 'example.com' },
  { order: 'desc', search: '%' },
  { order: 'asc', search: '_' },
  { order: 'desc', search: 'pat_1' },
  { order: 'asc', search: '\\x' },
  { order: 'desc', search: 'initech', team: 'blue' },
  { order: 'asc', search: 'tok_0' },
  { order: 'desc', search: 'nobody' },
];

describe.each(['sqlite', 'postgres'] as const)('the key list paged by the store (%s)', (dialect) => {
  let store: SqlStore;
  let tokens: TokenStore;
  let dir: string | undefined;
  const schema = `token_page_${process.pid}_${Date.now()}`;

  beforeAll(async () => {
    if (dialect === 'sqlite') {
      dir = mkdtempSync(join(tmpdir(), 'token-page-'));
      store = new SqliteStore(join(dir, 'gateway.db'));
    } else {
      const pgStore = new PostgresStore(PG_URL, schema);
      await pgStore.open();
      store = pgStore;
    }
    await store.migrate(TOKEN_MIGRATIONS);
    tokens = new TokenStore(store);
    for (const r of RECORDS) await tokens.insert(r, `hash-${r.id}`);
  });

  afterAll(async () => {
    if (dialect === 'postgres') await store.execute(`DROP SCHEMA "${schema}" CASCADE`);
    await store.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('answers the whole list (no limit) as sorting and filtering in memory does', async () => {
    for (const q of QUERIES) {
      const page = await tokens.page(q);
      if ('missingAfter' in page) throw new Error('unexpected');
      expect(
        page.records.map((r) => r.id),
        JSON.stringify(q),
      ).toEqual(expected(q));
      expect(page.hasMore).toBe(false);
    }
  });

  it('pages through the same list with after, for several page sizes', async () => {
    for (const q of QUERIES) for (const limit of [1, 7, 100]) expect(await walk(tokens, q, limit), `${JSON.stringify(q)} limit ${limit}`).toEqual(expected(q));
  });

  it('answers missingAfter for an after outside the list (unknown, another team, not found by the search)', async () => {
    const blue = RECORDS.find((r) => r.team === 'blue')!;
    expect(await tokens.page({ order: 'desc', limit: 5, after: 'tok_unknown' })).toEqual({ missingAfter: true });
    expect(await tokens.page({ order: 'desc', limit: 5, after: blue.id, team: 'red' })).toEqual({ missingAfter: true });
    expect(await tokens.page({ order: 'desc', limit: 5, after: blue.id, search: 'nobody' })).toEqual({ missingAfter: true });
    const page = await tokens.page({ order: 'desc', limit: 5, after: blue.id, team: 'blue' });
    if ('missingAfter' in page) throw new Error('unexpected');
    const list = expected({ order: 'desc', team: 'blue' });
    expect(page.records.map((r) => r.id)).toEqual(list.slice(list.indexOf(blue.id) + 1, list.indexOf(blue.id) + 6));
  });
});
