import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import Database from 'better-sqlite3';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { LedgerOverBackend } from '../../../src/features/governance/budgets/budget-ledger.js';
import { RedisLedgerBackend } from '../../../src/features/governance/budgets/redis-ledger-backend.js';
import { SqlLedgerBackend } from '../../../src/features/governance/budgets/sql-ledger-backend.js';
import type { ApplicableBudget } from '../../../src/features/governance/governance-types.js';
import { createLogger } from '../../../src/kernel/observability/logger.js';
import { PostgresStore } from '../../../src/kernel/store/postgres/postgres-store.js';
import { SqliteStore } from '../../../src/kernel/store/sqlite/sqlite-store.js';
import { REDIS_CLIENT_OPTIONS } from '../../../src/kernel/store/redis-client.js';
import { FakeUpstream, type ReceivedRequest } from '../../helpers/fake-upstream.js';
import { freePort, spawnGateway, waitForHealth, type GatewayProcess } from '../../helpers/built-gateway.js';
import { answers, chatCompletion, streamChunks, UPSTREAM_CHAT } from '../../helpers/routing-harness.js';
import { dropSharedState, PG_URL, REDIS_URL } from '../../helpers/shared-stores.js';

const KEY_SEARCH = 'cfg-two-instances-search-0123456789abcdef';
const KEY_ADS = 'cfg-two-instances-ads-0123456789abcdef01';
const KEY_HOURLY = 'cfg-two-instances-hourly-0123456789abcdef';
const HOUR_MS = 3_600_000;
/** The catalogue price: $100 / M input tokens, $200 / M output tokens; 20 output tokens at most. */
const PRICE = { input: '0.0001', output: '0.0002' };
/** What one fake answer costs (5 prompt + 7 completion tokens). */
const ANSWER_MICROS = 5 * 100 + 7 * 200;

interface Instance {
  proc: GatewayProcess;
  url: string;
}

/**
 * Two built gateway processes sharing one PostgreSQL schema (usage ledger, keys) and either one
 * Redis prefix (the budget ledger in Redis) or nothing else (the budget ledger in PostgreSQL);
 * and one built gateway on SQLite (one instance: its "other instance" is the same one, or the
 * one started again after a kill -9). A fake upstream answers; nothing inside the gateways is replaced.
 */
describe.each(['redis', 'postgres', 'sqlite'] as const)('built gateways with the budget ledger on %s', { timeout: 180_000 }, (ledgerStore) => {
  const single = ledgerStore === 'sqlite';
  const run = randomBytes(5).toString('hex');
  const schema = `test_two_${run}`;
  const prefix = `test-two-${run}:`;
  let dir: string;
  let upstream: FakeUpstream;
  const instances: Instance[] = [];
  let db: pg.Client;
  /** Settling in the test process: the same ledger code the gateways run, on their store. */
  let ledger: LedgerOverBackend;
  const closers: Array<() => Promise<unknown>> = [];
  /** Streams the fake upstream holds open (the kill -9 test). */
  const held: ServerResponse[] = [];

  const teamBudget = (subject: string, limit: number, window: Record<string, string> = { period: 'month' }): ApplicableBudget => ({
    id: `team:${subject}:0`,
    scope: 'team',
    subject,
    budget: { limit_usd: limit, window },
  });

  async function start(extraEnv: Record<string, string> = {}): Promise<Instance> {
    const port = await freePort();
    const config = join(dir, 'gateway.yaml');
    const proc = spawnGateway(['--config', config], { env: { GATEWAY_PORT: String(port), GATEWAY_DATA_DIR: dir, ...extraEnv } });
    const url = `http://127.0.0.1:${port}`;
    await waitForHealth(url, proc, 90_000);
    const instance = { proc, url };
    instances.push(instance);
    if (single && !ledger) {
      const store = new SqliteStore(join(dir, 'gateway.db'));
      closers.push(() => store.close());
      ledger = new LedgerOverBackend(new SqlLedgerBackend(store), { ttlMs: 2000, logger: createLogger('silent') });
    }
    return instance;
  }

  const chat = (url: string, key: string, body: Record<string, unknown> = {}, signal?: AbortSignal) =>
    fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-gateway-token': key },
      body: JSON.stringify({ model: 'chat', messages: [{ role: 'user', content: 'Hi' }], ...body }),
      signal,
    });

  async function usageRows(team: string, count: number): Promise<Array<{ request_id: string; status: number; cost_micros: string | number | null }>> {
    for (let i = 0; i < 200; i++) {
      const rows = single
        ? (new Database(join(dir, 'gateway.db'), { readonly: true }).prepare('SELECT request_id, status, cost_micros FROM gateway_usage WHERE team = ?').all(team) as any[])
        : (await db.query(`SELECT request_id, status, cost_micros FROM "${schema}".gateway_usage WHERE team = $1`, [team])).rows;
      if (rows.length >= count) return rows;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`fewer than ${count} usage rows of team ${team}`);
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gw-two-'));
    upstream = await new FakeUpstream().start();
    upstream.on(UPSTREAM_CHAT, (req: ReceivedRequest, res: ServerResponse) => {
      const body = req.json();
      if (body.messages?.[0]?.content === 'hold') {
        // The kill -9 test: the stream's first chunk, then the upstream keeps the stream open.
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(streamChunks(['held '])[0]!);
        held.push(res);
        return;
      }
      if (body.messages?.[0]?.content === 'slow') {
        setTimeout(
          () => {
            res.writeHead(200, { 'content-type': 'application/json' });
            res.end(JSON.stringify(chatCompletion('slow answer')));
          },
          20 + Math.random() * 80,
        );
        return;
      }
      (answers('shared answer') as (req: ReceivedRequest, res: ServerResponse) => void)(req, res);
    });
    const config = {
      server: { host: '127.0.0.1' },
      logging: { level: 'warn' },
      storage: single ? { type: 'sqlite', path: join(dir, 'gateway.db') } : { type: 'postgres', url: PG_URL, schema },
      ...(ledgerStore === 'redis' ? { redis: { url: REDIS_URL, keyPrefix: prefix } } : {}),
      providers: { openai: { baseUrl: `${upstream.url}/v1` } },
      secrets: { key: 'ab'.repeat(32) },
      credentials: { 'openai-test': { provider: 'openai', api_key: 'sk-held-two-instances' } },
      models: { chat: { targets: [{ provider: 'openai', model: 'gpt-4o-mini', credential: 'openai-test' }], price: PRICE, max_output_tokens: 20 } },
      auth: {
        apiKeys: [
          { key: KEY_SEARCH, user: 'search@example.com', team: 'search' },
          { key: KEY_ADS, user: 'ads@example.com', team: 'ads' },
          { key: KEY_HOURLY, user: 'hourly@example.com', team: 'hourly' },
        ],
      },
      tenants: { teams: { search: {}, ads: {}, hourly: {} } },
      budgets: {
        reservationTtl: '2s',
        // The machine running the tests is shared and loaded: a slow answer is not an outage here.
        storeTimeout: '10s',
        team: {
          search: { limit_usd: 10, window: { period: 'month' } },
          ads: { limit_usd: 0.006, window: { period: 'month' } },
          hourly: { limit_usd: 1000, window: { period: '1h' } },
        },
      },
    };
    writeFileSync(join(dir, 'gateway.yaml'), JSON.stringify(config, null, 2));
    db = new pg.Client({ connectionString: PG_URL });
    await db.connect();
    const logger = createLogger('silent');
    if (single) {
      // The gateway creates the tables; the test's ledger opens the file once they are there.
      ledger = undefined as unknown as LedgerOverBackend;
    } else if (ledgerStore === 'redis') {
      const redis = new Redis(REDIS_URL, REDIS_CLIENT_OPTIONS);
      await redis.connect();
      closers.push(() => redis.quit());
      ledger = new LedgerOverBackend(new RedisLedgerBackend(redis, prefix), { ttlMs: 2000, logger });
    } else {
      const store = new PostgresStore(PG_URL, schema);
      await store.open();
      closers.push(() => store.close());
      ledger = new LedgerOverBackend(new SqlLedgerBackend(store), { ttlMs: 2000, logger });
    }
  }, 240_000);

  afterAll(async () => {
    for (const res of held) res.destroy();
    for (const i of instances) i.proc.kill();
    await Promise.all(instances.map((i) => i.proc.exited));
    ledger?.stopHeartbeat();
    for (const close of closers) await close();
    await db?.end();
    await upstream?.stop();
    await dropSharedState('postgres', '', schema);
    if (ledgerStore === 'redis') await dropSharedState('redis', prefix, '');
    await new Promise((r) => setTimeout(r, 50));
    rmSync(dir, { recursive: true, force: true });
  });

  it('200 concurrent requests split over both instances at a budget with 1 % left: the settled spend never exceeds the limit, refused requests cost nothing', async () => {
    const a = await start();
    const b = single ? a : await start();
    // $9.90 of $10 already spent this month: 1 % left.
    const budget = teamBudget('search', 10);
    const seed = { id: `seed-${run}`, micros: 9_900_000, tokens: 0 };
    expect((await ledger.reserve([budget], seed)).ok).toBe(true);
    await ledger.settle([budget], seed, { micros: 9_900_000, tokens: 0 });
    const before = upstream.received(UPSTREAM_CHAT).length;

    const results = await Promise.all(Array.from({ length: 200 }, (_, i) => chat(i % 2 ? b.url : a.url, KEY_SEARCH)));
    const bodies = await Promise.all(results.map((r) => r.json() as Promise<any>));
    if (results.some((r) => r.status !== 200 && r.status !== 429)) throw new Error(JSON.stringify(bodies.find((b, i) => results[i]!.status !== 200 && results[i]!.status !== 429)));
    const served = results.filter((r) => r.status === 200);
    const refused = results.map((r, i) => ({ r, body: bodies[i] })).filter(({ r }) => r.status === 429);
    expect(served.length + refused.length).toBe(200);
    for (const { body } of refused) expect(body.error.code).toBe('budget_exceeded');
    // Some fit, most do not: $0.10 left holds at most 52 answers at 1,900 µ$ each.
    expect(served.length).toBeGreaterThan(0);
    expect(served.length).toBeLessThanOrEqual(Math.floor(100_000 / ANSWER_MICROS));
    expect(refused.length).toBeGreaterThan(0);
    // Refused requests never went upstream.
    expect(upstream.received(UPSTREAM_CHAT).length - before).toBe(served.length);
    for (const r of served) expect(r.headers.get('x-gateway-cost')).toBe('0.001900');

    // A served request's row is written once its spend is in the store (with budget leases that
    // follows the answer by up to about 1.5 × budgets.leases.interval): every row there, every spend too.
    const rows = await usageRows('search', 200);
    expect(rows).toHaveLength(200);
    const spent = (await ledger.spent([budget])).get(budget.id)!;
    expect(spent.micros).toBe(9_900_000 + served.length * ANSWER_MICROS);
    expect(spent.micros).toBeLessThanOrEqual(10_000_000);

    const ids = new Set(results.map((r) => r.headers.get('x-gateway-request-id')));
    expect(new Set(rows.map((r) => r.request_id))).toEqual(ids);
    const refusedRows = rows.filter((r) => r.status === 429);
    expect(refusedRows).toHaveLength(refused.length);
    for (const r of refusedRows) expect(Number(r.cost_micros)).toBe(0);
    const servedCost = rows.filter((r) => r.status === 200).reduce((sum, r) => sum + Number(r.cost_micros), 0);
    expect(9_900_000 + servedCost).toBe(spent.micros);
  });

  it('kill -9 of an instance mid-stream frees its reservation within its expiry: the other instance spends it afterwards', async () => {
    const a = instances.at(-1)!;
    const b = single ? undefined : instances.at(-2)!;
    // $0.006 holds one worst case (prompt + 20 output tokens, under 5,000 µ$) and not two.
    const controller = new AbortController();
    const stream = await chat(a.url, KEY_ADS, { stream: true, messages: [{ role: 'user', content: 'hold' }] }, controller.signal);
    expect(stream.status).toBe(200);
    const reader = stream.body!.getReader();
    await reader.read();
    const refused = await chat((b ?? a).url, KEY_ADS);
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as any).error.code).toBe('budget_exceeded');

    a.proc.child.kill('SIGKILL');
    await a.proc.exited;
    const killedAt = Date.now();
    controller.abort();
    // SQLite: the one instance started again on the same file (its start-up outlasts the 2 s expiry).
    const other = b ?? (await start());
    let servedAt = 0;
    while (Date.now() - killedAt < 10_000) {
      const res = await chat(other.url, KEY_ADS);
      await res.arrayBuffer();
      if (res.status === 200) {
        servedAt = Date.now();
        break;
      }
      expect(res.status).toBe(429);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(servedAt).toBeGreaterThan(0);
    // reservationTtl is 2 s: the dead instance's last heartbeat pushed the expiry at most 2 s ahead.
    if (!single) expect(servedAt - killedAt).toBeLessThan(2000 + 1000);
    // The settle follows the answer: the spend is there once it has run.
    await vi.waitFor(async () => expect((await ledger.spent([teamBudget('ads', 0.006)])).get('team:ads:0')!.micros).toBe(ANSWER_MICROS), { timeout: 5000, interval: 50 });
  });

  it('a window boundary crossed under load loses no spend: each settle lands in the window it happens in', async () => {
    // Both instances run on a clock that a module loaded before the gateway moves (nothing in the
    // gateway is changed): once they are up, SIGUSR2 makes them read an offset that puts an hour
    // boundary 3 s ahead.
    const shift = join(dir, 'clock-shift.mjs');
    const offsetFile = join(dir, 'clock-offset');
    writeFileSync(
      shift,
      [
        "import { readFileSync } from 'node:fs';",
        'let offset = 0;',
        'const now = Date.now;',
        'Date.now = () => now() + offset;',
        "process.on('SIGUSR2', () => { offset = Number(readFileSync(process.env.TEST_CLOCK_OFFSET_FILE, 'utf8')); });",
        '',
      ].join('\n'),
    );
    const env = { NODE_OPTIONS: `--import=${shift}`, TEST_CLOCK_OFFSET_FILE: offsetFile };
    if (single) {
      for (const i of instances) i.proc.kill();
      await Promise.all(instances.map((i) => i.proc.exited));
    }
    const a = await start(env);
    const b = single ? a : await start(env);
    const realBoundaryAt = Date.now() + 3000;
    const boundary = (Math.floor(Date.now() / HOUR_MS) + 2) * HOUR_MS;
    writeFileSync(offsetFile, String(boundary - realBoundaryAt));
    for (const i of new Set([a, b])) i.proc.child.kill('SIGUSR2');
    await new Promise((r) => setTimeout(r, 200));
    // Load from 3 s before the boundary to 3 s after it, on both instances.
    const results: Response[] = [];
    const until = realBoundaryAt + 3000;
    const worker = async (url: string) => {
      while (Date.now() < until) {
        const res = await chat(url, KEY_HOURLY, { messages: [{ role: 'user', content: 'slow' }] });
        await res.arrayBuffer();
        results.push(res);
      }
    };
    await Promise.all([a, b, a, b, a, b, a, b].map((i) => worker(i.url)));
    expect(results.every((r) => r.status === 200)).toBe(true);
    const rows = await usageRows('hourly', results.length);
    const total = rows.reduce((sum, r) => sum + Number(r.cost_micros), 0);
    expect(total).toBe(results.length * ANSWER_MICROS);
    const budget = teamBudget('hourly', 1000, { period: '1h' });
    const before = (await ledger.spent([budget], boundary - 1)).get(budget.id)!.micros;
    const after = (await ledger.spent([budget], boundary)).get(budget.id)!.micros;
    expect(before).toBeGreaterThan(0);
    expect(after).toBeGreaterThan(0);
    expect(before + after).toBe(total);
  });
});
