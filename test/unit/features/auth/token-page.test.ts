// The key list paged by the store's query (TokenStore.page), on SQLite and PostgreSQL: the same
// keys, in the same order, as sorting, filtering and slicing every key in memory.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
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
    // A name of two lines (a search that holds a line break is answered column by column on PostgreSQL).
    name: i === 13 ? 'Line one\nline two' : i % 6 === 0 ? `Name ${i}\\x` : null,
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
  // LIKE's metacharacters match only themselves: e_c is not e.c, %@e is in Pat_5%@example.com.
  { order: 'asc', search: 'e_c' },
  { order: 'desc', search: '%@e' },
  { order: 'asc', search: '_%' },
  { order: 'desc', search: 'example%' },
  { order: 'asc', search: 'e.com' },
  // Not across two columns (a user that ends in .com, then no name, then an email): but inside one.
  { order: 'asc', search: 'com\n\nmail' },
  { order: 'asc', search: 'com\nmail' },
  { order: 'desc', search: 'one\nline' },
  { order: 'desc', search: 'a', team: 'red' },
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

/** `store`, keeping the SQL of every query it runs (the last one is what a page asked). */
function recording(store: SqlStore, seen: Array<{ sql: string; params: unknown[] }>): SqlStore {
  return {
    dialect: store.dialect,
    query: <T>(sql: string, params: unknown[] = []) => {
      seen.push({ sql, params });
      return store.query<T>(sql, params);
    },
    execute: (sql, params) => store.execute(sql, params),
    transaction: (fn) => store.transaction(fn),
    migrate: (migrations) => store.migrate(migrations),
    close: () => store.close(),
  };
}

/** The names of the indexes a JSON plan (EXPLAIN (FORMAT JSON)) reads, by node type. */
function scans(plan: unknown): string[] {
  const out: string[] = [];
  const visit = (node: Record<string, unknown>) => {
    if (typeof node['Index Name'] === 'string') out.push(`${String(node['Node Type'])} ${node['Index Name']}`);
    else if (String(node['Node Type']).endsWith('Scan')) out.push(String(node['Node Type']));
    for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? []) visit(child);
  };
  visit(((plan as Array<{ Plan: Record<string, unknown> }>)[0] ?? { Plan: {} }).Plan);
  return out;
}

/** A client of the test database as its superuser, on `database` (default: the tests' own). */
async function admin(database?: string): Promise<pg.Client> {
  const url = new URL(PG_URL);
  if (database) url.pathname = `/${database}`;
  const client = new pg.Client({ connectionString: url.href });
  await client.connect();
  return client;
}

describe('the key search on PostgreSQL, with its trigram index', () => {
  const schema = `token_search_${process.pid}_${Date.now()}`;
  let store: PostgresStore;
  /** The same schema, in sessions where the planner may read the table only through a bitmap of an index. */
  let indexOnly: PostgresStore;
  const seen: Array<{ sql: string; params: unknown[] }> = [];

  beforeAll(async () => {
    // pg_trgm in public, where no test's schema drop takes it (and the indexes of the other tests' schemas with it).
    const su = await admin();
    await su.query('CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public');
    await su.query(
      `DO $$ BEGIN IF (SELECT extnamespace::regnamespace::text FROM pg_extension WHERE extname = 'pg_trgm') <> 'public' THEN ALTER EXTENSION pg_trgm SET SCHEMA public; END IF; END $$`,
    );
    await su.end();
    store = new PostgresStore(PG_URL, schema);
    await store.open();
    expect(await store.migrate(TOKEN_MIGRATIONS)).toEqual({ skipped: [] });
    const tokens = new TokenStore(store);
    for (const r of RECORDS) await tokens.insert(r, `hash-${r.id}`);
    await store.execute('ANALYZE gateway_auth_tokens');
    const url = new URL(PG_URL);
    url.searchParams.set('options', `-c search_path=${schema} -c enable_seqscan=off -c enable_indexscan=off`);
    indexOnly = new PostgresStore(url.href);
    await indexOnly.open();
  });

  afterAll(async () => {
    await indexOnly.close();
    await store.execute(`DROP SCHEMA "${schema}" CASCADE`);
    await store.close();
  });

  it('has the index, and the query of a search is answered through it', async () => {
    expect(await store.query("SELECT indexname FROM pg_indexes WHERE schemaname = ? AND indexname = 'gateway_auth_tokens_search'", [schema])).toHaveLength(1);
    const tokens = new TokenStore(recording(indexOnly, seen));
    for (const q of [
      { order: 'desc', search: 'example.com', limit: 5 },
      { order: 'asc', search: 'pat_1', limit: 5 },
      { order: 'desc', search: 'initech', limit: 5 },
    ] satisfies TokenPageQuery[]) {
      seen.length = 0;
      await tokens.page(q);
      const { sql, params } = seen.at(-1)!;
      const [{ 'QUERY PLAN': plan }] = await indexOnly.query<{ 'QUERY PLAN': unknown }>(`EXPLAIN (FORMAT JSON) ${sql}`, params);
      expect(scans(plan), JSON.stringify(q)).toContain('Bitmap Index Scan gateway_auth_tokens_search');
      expect(scans(plan), JSON.stringify(q)).not.toContain('Seq Scan');
    }
    // A search that holds a line break is not a part of the one text: asked column by column (no index), the same answer.
    seen.length = 0;
    await tokens.page({ order: 'desc', search: 'one\nline' });
    expect(seen.at(-1)!.sql).not.toContain("E'\\n'");
  });

  it('finds, through the index, the keys that filtering in memory finds (LIKE metacharacters included), page after page', async () => {
    const tokens = new TokenStore(indexOnly);
    for (const q of QUERIES.filter((q) => q.search)) for (const limit of [3, 100]) expect(await walk(tokens, q, limit), `${JSON.stringify(q)} limit ${limit}`).toEqual(expected(q));
  });
});

describe('the key search on PostgreSQL, as a role that may not create pg_trgm', () => {
  const tag = `${process.pid}_${Date.now()}`;
  const role = `gw_noext_${tag}`;
  const database = `gw_noext_${tag}`;
  let store: PostgresStore;

  beforeAll(async () => {
    const su = await admin();
    await su.query(`CREATE ROLE "${role}" LOGIN`);
    await su.query(`CREATE DATABASE "${database}"`);
    await su.end();
    // The role owns a schema of its own name (first on its search path) and has no CREATE on the database.
    const there = await admin(database);
    await there.query(`CREATE SCHEMA "${role}" AUTHORIZATION "${role}"`);
    await there.end();
    const url = new URL(PG_URL);
    url.username = role;
    url.pathname = `/${database}`;
    store = new PostgresStore(url.href);
    await store.open();
  });

  afterAll(async () => {
    await store.close();
    const su = await admin();
    await su.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    await su.query(`DROP ROLE IF EXISTS "${role}"`);
    await su.end();
  });

  it('leaves the index out (answered as skipped, tried again at each migrate), searches every row alike, and makes the index once an admin made the extension', async () => {
    const first = await store.migrate(TOKEN_MIGRATIONS);
    expect(first.skipped).toEqual([
      { id: 'auth-tokens-005-search-trigrams', without: expect.stringMatching(/reads every key/), error: expect.stringMatching(/permission denied/) },
    ]);
    const tokens = new TokenStore(store);
    for (const r of RECORDS) await tokens.insert(r, `hash-${r.id}`);
    const searches = QUERIES.filter((q) => q.search);
    for (const q of searches) expect(await walk(tokens, q, 7), JSON.stringify(q)).toEqual(expected(q));
    expect((await store.migrate(TOKEN_MIGRATIONS)).skipped.map((s) => s.id)).toEqual(['auth-tokens-005-search-trigrams']);
    const applied = await store.query<{ id: string }>("SELECT id FROM gateway_migrations WHERE id LIKE 'auth-tokens-%' ORDER BY id");
    expect(applied.map((r) => r.id)).toEqual(['auth-tokens-001-create', 'auth-tokens-002-gateway-keys', 'auth-tokens-003-last4', 'auth-tokens-004-list-order']);

    // An admin creates the extension (in public): the next migrate makes the index with it.
    const there = await admin(database);
    await there.query('CREATE EXTENSION pg_trgm');
    await there.end();
    expect(await store.migrate(TOKEN_MIGRATIONS)).toEqual({ skipped: [] });
    expect(await store.query("SELECT indexname FROM pg_indexes WHERE indexname = 'gateway_auth_tokens_search'")).toHaveLength(1);
    for (const q of searches) expect(await walk(tokens, q, 7), JSON.stringify(q)).toEqual(expected(q));
  });
});
