import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import OpenAI, { toFile } from 'openai';
import { FakeUpstream } from '../helpers/fake-upstream.js';
import { buildGateway, freePort, spawnGateway, waitForHealth, type GatewayProcess } from '../helpers/built-gateway.js';
import { chatLine, CountingChat, jsonl } from '../helpers/batch-fakes.js';

const PG_URL = process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const KEY = 'sk-deepseek-shared-lines-0001';
const LINES = 90;
const CONCURRENCY = 3;

/**
 * Two gateway instances on one PostgreSQL share the lines of one batch (each line claimed by one
 * of them with FOR UPDATE SKIP LOCKED); when one dies, the other takes over the lines it held.
 */
describe('one gateway-run batch on two instances sharing PostgreSQL', () => {
  const schema = `gw_lines_${randomBytes(5).toString('hex')}`;
  let upstream: FakeUpstream;
  let dir: string;
  let db: pg.Client;
  const procs: GatewayProcess[] = [];

  beforeAll(async () => {
    buildGateway();
    upstream = await new FakeUpstream().start();
    dir = mkdtempSync(join(tmpdir(), 'gw-shared-lines-'));
    db = new pg.Client({ connectionString: PG_URL });
    await db.connect();
  }, 180_000);
  afterAll(async () => {
    for (const p of procs) p.kill();
    await upstream?.stop();
    await db?.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await db?.end();
    rmSync(dir, { recursive: true, force: true });
  });

  async function start(): Promise<{ url: string; proc: GatewayProcess }> {
    const port = await freePort();
    const proc = spawnGateway(['--config', join(dir, 'gateway.json')], {
      env: { GATEWAY_PORT: String(port), GATEWAY_SECRET_KEY: 'shared-lines-test-secret-of-both-gateways' },
    });
    procs.push(proc);
    const url = `http://127.0.0.1:${port}`;
    await waitForHealth(url, proc);
    return { url, proc };
  }

  /** Which instance (runner id) claimed how many lines of the batch. */
  async function linesByRunner(batchId: string): Promise<Map<string, number>> {
    const { rows } = await db.query(`SELECT runner, COUNT(*) AS n FROM "${schema}".gateway_batch_lines WHERE batch_id = $1 AND runner IS NOT NULL GROUP BY runner`, [batchId]);
    return new Map(rows.map((r) => [r.runner as string, Number(r.n)]));
  }

  it('both instances send lines, each line once; lines held by a killed instance are taken over', async () => {
    const chat = new CountingChat({ delayMs: 100 });
    upstream.on('POST /chat/completions', chat.handler);
    writeFileSync(
      join(dir, 'gateway.json'),
      JSON.stringify({
        server: { host: '127.0.0.1' },
        storage: { type: 'postgres', url: PG_URL, schema, filesDir: join(dir, 'files') },
        providers: { deepseek: { baseUrl: upstream.url } },
        batches: { concurrency: CONCURRENCY, claimTimeout: '3s' },
        logging: { level: 'warn' },
      }),
    );
    const a = await start();
    const b = await start();
    const client = (url: string) => new OpenAI({ baseURL: `${url}/v1`, apiKey: KEY, defaultHeaders: { 'x-gateway-provider': 'deepseek' }, maxRetries: 0 });
    const ids = Array.from({ length: LINES }, (_, i) => `s-${i}`);
    const file = await client(a.url).files.create({ file: await toFile(Buffer.from(ids.map((id) => chatLine(id)).join('\n')), 's.jsonl'), purpose: 'batch' });
    const batch = await client(a.url).batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });

    // The instance that did not take the request joins in: both send lines of the one batch.
    const by = Date.now() + 30_000;
    let runners = await linesByRunner(batch.id);
    while (runners.size < 2 && Date.now() < by) {
      await new Promise((r) => setTimeout(r, 50));
      runners = await linesByRunner(batch.id);
    }
    expect(runners.size).toBe(2);
    // Both joined while most of the batch was still to do.
    expect(upstream.requests.length).toBeLessThan(LINES);

    // Kill the instance that took the request mid-batch; the other finishes, taking over its claimed lines.
    a.proc.child.kill('SIGKILL');
    await a.proc.exited;
    const sentBeforeKill = new Map(chat.seen);
    let done = await client(b.url).batches.retrieve(batch.id);
    const end = Date.now() + 60_000;
    while (done.status !== 'completed' && Date.now() < end) {
      await new Promise((r) => setTimeout(r, 100));
      done = await client(b.url).batches.retrieve(batch.id);
    }
    expect(done.status).toBe('completed');
    expect(done.request_counts).toMatchObject({ total: LINES });
    expect(done.request_counts!.completed + done.request_counts!.failed).toBe(LINES);

    const output = jsonl(await (await client(b.url).files.content(done.output_file_id!)).text());
    const errors = done.error_file_id ? jsonl(await (await client(b.url).files.content(done.error_file_id)).text()) : [];
    // Each custom_id has exactly one result, and no line was sent twice.
    expect([...output, ...errors].map((l) => l.custom_id).sort()).toEqual([...ids].sort());
    for (const id of ids) expect(chat.count(id)).toBeLessThanOrEqual(1);
    for (const line of output) expect(line.response.body.choices[0].message.content).toBe(`answer to ${line.custom_id}`);
    // Only lines the killed instance had in flight (claimed: sent or about to be) fail, saying so;
    // none of them was sent again.
    expect(errors.length).toBeLessThanOrEqual(CONCURRENCY);
    for (const line of errors) expect(line.error.code).toBe('batch_line_interrupted');
    const { rows } = await db.query(`SELECT DISTINCT runner FROM "${schema}".gateway_batch_lines WHERE batch_id = $1 AND error LIKE '%batch_line_interrupted%'`, [batch.id]);
    expect(rows.length).toBeLessThanOrEqual(1);
    expect(sentBeforeKill.size).toBeGreaterThan(0);
    expect(b.proc.stdout() + b.proc.stderr()).not.toContain(KEY);
  }, 150_000);
});
