import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { BufferedUsageLedger } from '../../../../src/features/governance/metering/buffered-usage-ledger.js';
import { insertUsageRows, TOKEN_COLUMNS, USAGE_MIGRATIONS, withRowId } from '../../../../src/features/governance/metering/usage-store.js';
import type { UsagePart, UsageRow } from '../../../../src/features/governance/governance-types.js';
import { NO_USAGE } from '../../../../src/features/governance/prices/usage-classes.js';
import { PostgresStore } from '../../../../src/kernel/store/postgres/postgres-store.js';
import { SqliteStore } from '../../../../src/kernel/store/sqlite/sqlite-store.js';
import type { SqlStore } from '../../../../src/kernel/store/sql-store.js';
import { dropSharedState, PG_URL } from '../../../helpers/shared-stores.js';
import { LogCollector } from '../../../helpers/start-gateway.js';

/**
 * The usage ledger's tables: a request's row and its parts (a tool loop's model and tool calls)
 * land together, in one transaction, on SQLite and PostgreSQL.
 */
const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function storeOf(kind: 'sqlite' | 'postgres'): Promise<SqlStore> {
  let store: SqlStore;
  if (kind === 'postgres') {
    const schema = `test_usage_parts_${randomBytes(5).toString('hex')}`;
    const pg = new PostgresStore(PG_URL, schema);
    await pg.open();
    store = pg;
    cleanups.push(async () => {
      await pg.close();
      await dropSharedState('postgres', '', schema);
    });
  } else {
    const dir = mkdtempSync(join(tmpdir(), 'usage-parts-'));
    const sqlite = new SqliteStore(join(dir, 'gateway.db'));
    store = sqlite;
    cleanups.push(async () => {
      await sqlite.close();
      rmSync(dir, { recursive: true, force: true });
    });
  }
  await store.migrate(USAGE_MIGRATIONS);
  return store;
}

const row = (requestId: string, parts?: UsagePart[]): UsageRow => ({
  requestId,
  at: 1_700_000_000_000,
  keyId: 'k',
  user: 'u',
  team: 't',
  organization: null,
  customer: null,
  route: 'POST /v1/responses',
  provider: 'deepseek',
  model: 'deepseek-v4-pro',
  usage: { ...NO_USAGE, input: 20, output: 10 },
  costMicros: 2050,
  priceSource: 'table',
  status: 200,
  latencyMs: 12.4,
  estimated: false,
  unverified: false,
  ...(parts ? { parts } : {}),
});

const modelPart = (seq: number, status = 200): UsagePart => ({
  seq,
  kind: 'model',
  provider: 'deepseek',
  model: 'deepseek-v4-pro',
  server: null,
  tool: null,
  usage: { ...NO_USAGE, input: 10, output: 5 },
  costMicros: status === 200 ? 25 : 0,
  priceSource: status === 200 ? 'table' : null,
  status,
  latencyMs: 3.6,
  estimated: false,
  at: 1_700_000_000_100 + seq,
});

const toolPart = (seq: number): UsagePart => ({
  seq,
  kind: 'tool',
  provider: null,
  model: null,
  server: 'remote',
  tool: 'echo',
  usage: { ...NO_USAGE },
  costMicros: 2000,
  priceSource: 'mcpServers.remote.toolPrices',
  status: 200,
  latencyMs: 1,
  estimated: false,
  at: 1_700_000_000_100 + seq,
});

describe.each(['sqlite', 'postgres'] as const)('usage rows and their parts (%s)', (kind) => {
  it('a row and its parts land together; a retried batch writes each once', async () => {
    const store = await storeOf(kind);
    const batch = [withRowId(row('req-1', [modelPart(1), toolPart(2), modelPart(3, 400)])), withRowId(row('req-2'))];
    await insertUsageRows(store, batch);
    await insertUsageRows(store, batch);
    const rows = await store.query<any>('SELECT request_id, status, cost_micros, parent_request_id FROM gateway_usage ORDER BY request_id');
    expect(rows.map((r) => [r.request_id, Number(r.status), Number(r.cost_micros), r.parent_request_id])).toEqual([
      ['req-1', 200, 2050, null],
      ['req-2', 200, 2050, null],
    ]);
    const parts = await store.query<any>('SELECT * FROM gateway_usage_parts ORDER BY request_id, seq');
    expect(
      parts.map((p) => [
        p.request_id,
        Number(p.seq),
        p.kind,
        p.provider,
        p.model,
        p.server,
        p.tool,
        Number(p.input_tokens),
        Number(p.cost_micros),
        Number(p.status),
        Number(p.latency_ms),
      ]),
    ).toEqual([
      ['req-1', 1, 'model', 'deepseek', 'deepseek-v4-pro', null, null, 10, 25, 200, 4],
      ['req-1', 2, 'tool', null, null, 'remote', 'echo', 0, 2000, 200, 1],
      ['req-1', 3, 'model', 'deepseek', 'deepseek-v4-pro', null, null, 10, 0, 400, 4],
    ]);
  });

  it('every column of a row lands in its own column, whatever the batch size', async () => {
    const store = await storeOf(kind);
    const full = (requestId: string, n: number): UsageRow => ({
      requestId,
      at: 1_700_000_000_000 + n,
      keyId: `key-${n}`,
      user: `user-${n}`,
      team: `team-${n}`,
      organization: `org-${n}`,
      customer: `customer-${n}`,
      route: `POST /v1/route-${n}`,
      provider: `provider-${n}`,
      model: `model-${n}`,
      usage: { input: 1, cacheRead: 2, cacheWrite: 3, output: 4, reasoning: 5, inputAudio: 6, outputAudio: 7, images: 8, audioSeconds: 9, characters: 10 },
      costMicros: 1000 + n,
      priceSource: `source-${n}`,
      status: 201,
      latencyMs: 41.6,
      estimated: true,
      unverified: n % 2 === 0,
      attempts: [{ provider: `provider-${n}`, target: '0', status: 201, latency_ms: 42, error_type: null }],
    });
    // 1 row, then 3 (a new statement), then 1 again (the first statement, cached)
    await insertUsageRows(store, [withRowId(full('a', 0))]);
    await insertUsageRows(
      store,
      [1, 2, 3].map((n) => withRowId(full(`b${n}`, n))),
    );
    await insertUsageRows(store, [withRowId(full('c', 4))]);
    const rows = await store.query<any>('SELECT * FROM gateway_usage ORDER BY request_id');
    expect(rows.map((r) => r.request_id)).toEqual(['a', 'b1', 'b2', 'b3', 'c']);
    rows.forEach((r, i) => {
      const n = i;
      expect(typeof r.id).toBe('string');
      expect([Number(r.at), r.key_id, r.user_id, r.team, r.organization, r.customer, r.route, r.provider, r.model]).toEqual([
        1_700_000_000_000 + n,
        `key-${n}`,
        `user-${n}`,
        `team-${n}`,
        `org-${n}`,
        `customer-${n}`,
        `POST /v1/route-${n}`,
        `provider-${n}`,
        `model-${n}`,
      ]);
      expect(TOKEN_COLUMNS.map((c) => Number(r[c]))).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      expect([Number(r.cost_micros), r.price_source, Number(r.status), Number(r.latency_ms), Number(r.estimated), Number(r.unverified)]).toEqual([
        1000 + n,
        `source-${n}`,
        201,
        42,
        1,
        n % 2 === 0 ? 1 : 0,
      ]);
      expect(JSON.parse(r.attempts)).toEqual([{ provider: `provider-${n}`, target: '0', status: 201, latency_ms: 42, error_type: null }]);
    });
  });

  it('a part that cannot be written keeps its row out too (one transaction)', async () => {
    const store = await storeOf(kind);
    const broken = { ...toolPart(1), kind: null } as unknown as UsagePart;
    await expect(insertUsageRows(store, [withRowId(row('req-3', [modelPart(1), broken]))])).rejects.toThrow();
    expect(await store.query('SELECT request_id FROM gateway_usage')).toEqual([]);
    expect(await store.query('SELECT request_id FROM gateway_usage_parts')).toEqual([]);
  });

  it('many parts (past one INSERT) and late parts through the buffered ledger', async () => {
    const store = await storeOf(kind);
    const ledger = new BufferedUsageLedger(store, pino({ level: 'info' }, new LogCollector()), { intervalMs: 5 });
    const parts = Array.from({ length: 1200 }, (_, i) => (i % 2 ? toolPart(i + 1) : modelPart(i + 1)));
    ledger.record(row('req-4', parts));
    ledger.recordParts('req-4', [toolPart(1201)]);
    ledger.recordParts('req-4', []);
    await ledger.flush();
    const [count] = await store.query<any>("SELECT COUNT(*) AS n, MAX(seq) AS last FROM gateway_usage_parts WHERE request_id = 'req-4'");
    expect([Number(count.n), Number(count.last)]).toEqual([1201, 1201]);
    expect((await store.query<any>('SELECT request_id FROM gateway_usage')).map((r) => r.request_id)).toEqual(['req-4']);
  });

  it('keeps only the indexes its queries read (a time range, a key or team newest first, one request)', async () => {
    const store = await storeOf(kind);
    const names =
      kind === 'sqlite'
        ? await store.query<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'gateway_usage' AND name NOT LIKE 'sqlite_autoindex%'")
        : await store.query<{ name: string }>(
            "SELECT indexname AS name FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'gateway_usage' AND indexname NOT LIKE '%pkey'",
          );
    expect(names.map((r) => r.name).sort()).toEqual(['gateway_usage_at', 'gateway_usage_key_at', 'gateway_usage_request', 'gateway_usage_team_at']);
  });
});
