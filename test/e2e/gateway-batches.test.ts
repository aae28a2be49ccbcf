import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI, { toFile } from 'openai';
import { buildConfig } from '../../src/kernel/config/load-config.js';
import { createGateway, type Gateway } from '../../src/gateway.js';
import { FakeUpstream } from '../helpers/fake-upstream.js';
import { LogCollector } from '../helpers/start-gateway.js';
import { chatLine, CountingChat, jsonl } from '../helpers/batch-fakes.js';

const KEY = 'sk-deepseek-batch-owner-0001';

/** A gateway on `dataDir` (kept across restarts), with `env` for its secrets. */
async function gatewayOn(dataDir: string, config: Record<string, unknown>, env: Record<string, string> = {}): Promise<{ gateway: Gateway; url: string; logs: LogCollector }> {
  const logs = new LogCollector();
  const built = buildConfig({ logging: { level: 'info' }, ...config }, 'test', { env: { ...process.env, GATEWAY_SECRET_KEY: '', ...env, GATEWAY_DATA_DIR: dataDir } });
  const gateway = await createGateway(built, { logDestination: logs });
  const url = await gateway.listen(0, '127.0.0.1');
  return { gateway, url, logs };
}

function sdk(url: string, key = KEY, headers: Record<string, string> = {}): OpenAI {
  return new OpenAI({ baseURL: `${url}/v1`, apiKey: key, defaultHeaders: { 'x-gateway-provider': 'deepseek', ...headers }, maxRetries: 0 });
}

async function until<T>(fn: () => Promise<T>, ok: (v: T) => boolean, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`condition not met in time: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 40));
  }
}

describe('batches the gateway runs itself (deepseek has no batch API)', () => {
  let upstream: FakeUpstream;
  let chat: CountingChat;
  const dirs: string[] = [];
  const gateways: Gateway[] = [];

  const start = async (config: Record<string, unknown> = {}, env: Record<string, string> = {}, dir?: string) => {
    const dataDir = dir ?? mkdtempSync(join(tmpdir(), 'gw-batch-'));
    if (!dir) dirs.push(dataDir);
    const gw = await gatewayOn(dataDir, { providers: { deepseek: { baseUrl: upstream.url } }, ...config }, env);
    gateways.push(gw.gateway);
    return { ...gw, dataDir };
  };

  beforeAll(async () => {
    upstream = await new FakeUpstream().start();
  });
  afterEach(async () => {
    for (const g of gateways.splice(0)) await g.close(1000);
  });
  afterAll(async () => {
    await upstream.stop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('keeps the input file, runs every line, and writes output and error files', async () => {
    chat = new CountingChat({ rateLimit: { 'req-3': 2 } });
    upstream.on('POST /chat/completions', chat.handler);
    const { url } = await start({ batches: { concurrency: 3 } });
    const client = sdk(url);
    const lines = Array.from({ length: 12 }, (_, i) => chatLine(`req-${i}`));
    lines[7] = chatLine('req-7', { temperature: 5 });
    const input = `${lines.join('\n')}\n`;
    const file = await client.files.create({ file: await toFile(Buffer.from(input), 'nightly.jsonl'), purpose: 'batch' });
    expect(file).toMatchObject({ object: 'file', purpose: 'batch', filename: 'nightly.jsonl', bytes: Buffer.byteLength(input), status: 'processed' });
    expect(file.id).toMatch(/^file-gw-/);
    expect(await (await client.files.content(file.id)).text()).toBe(input);

    const created = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h', metadata: { job: 'nightly' } });
    expect(created).toMatchObject({ object: 'batch', status: 'validating', input_file_id: file.id, completion_window: '24h', metadata: { job: 'nightly' }, output_file_id: null });
    expect(created.id).toMatch(/^batch-gw-/);

    const done = await until(
      () => client.batches.retrieve(created.id),
      (b) => b.status === 'completed',
    );
    expect(done.request_counts).toEqual({ total: 12, completed: 11, failed: 1 });
    expect(done.in_progress_at).toBeGreaterThan(0);
    expect(done.finalizing_at).toBeGreaterThan(0);
    expect(done.completed_at).toBeGreaterThanOrEqual(done.in_progress_at!);

    const output = jsonl(await (await client.files.content(done.output_file_id!)).text());
    expect(output.map((l) => l.custom_id)).toEqual(Array.from({ length: 12 }, (_, i) => `req-${i}`).filter((id) => id !== 'req-7'));
    for (const line of output) {
      expect(line).toMatchObject({
        response: { status_code: 200, body: { object: 'chat.completion', choices: [{ message: { content: `answer to ${line.custom_id}` } }] } },
        error: null,
      });
      expect(line.id).toMatch(/^batch_req_/);
      expect(typeof line.response.request_id).toBe('string');
    }
    const errors = jsonl(await (await client.files.content(done.error_file_id!)).text());
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({
      custom_id: 'req-7',
      response: { status_code: 400, body: { status: 'failure', error: { param: 'temperature', code: 'missing_required_parameter' } } },
      error: { code: 'missing_required_parameter' },
    });
    // Each line went upstream once; req-3 was refused twice with 429, waited, and went again.
    for (let i = 0; i < 12; i++) expect(chat.count(`req-${i}`)).toBe(i === 7 ? 0 : i === 3 ? 3 : 1);
    expect(JSON.stringify(errors)).not.toContain(KEY);
  });

  it('fails a batch whose input file is not valid, naming the line', async () => {
    upstream.on('POST /chat/completions', new CountingChat().handler);
    const { url } = await start();
    const client = sdk(url);
    const input = [chatLine('a'), '{not json', chatLine('a'), JSON.stringify({ custom_id: 'c', method: 'POST', url: '/v1/embeddings', body: {} }), chatLine('d\u0000')].join('\n');
    const file = await client.files.create({ file: await toFile(Buffer.from(input), 'bad.jsonl'), purpose: 'batch' });
    const batch = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    const failed = await until(
      () => client.batches.retrieve(batch.id),
      (b) => b.status === 'failed',
    );
    expect(failed.failed_at).toBeGreaterThan(0);
    expect(failed.errors!.data!.map((e) => [e.code, e.line])).toEqual([
      ['invalid_json_line', 2],
      ['duplicate_custom_id', 3],
      ['mismatched_endpoint', 4],
      ['invalid_request', 5],
    ]);
  });

  it('a line the upstream answers 200 with bytes that are not JSON fails as its bad answer (502): every output line stays JSON', async () => {
    const counting = new CountingChat();
    upstream.on('POST /chat/completions', async (req, res) => {
      if (req.json().messages[0].content !== 'broken') return counting.handler(req, res);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"id": "chatcmpl-broken", "choices": [ cut off \u0000');
    });
    const { url } = await start();
    const client = sdk(url);
    const input = `${[chatLine('fine'), chatLine('broken')].join('\n')}\n`;
    const file = await client.files.create({ file: await toFile(Buffer.from(input), 'mixed.jsonl'), purpose: 'batch' });
    const batch = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    const done = await until(
      () => client.batches.retrieve(batch.id),
      (b) => b.status === 'completed',
    );
    expect(done.request_counts).toEqual({ total: 2, completed: 1, failed: 1 });
    const output = jsonl(await (await client.files.content(done.output_file_id!)).text());
    expect(output.map((l) => l.custom_id)).toEqual(['fine']);
    const errors = jsonl(await (await client.files.content(done.error_file_id!)).text());
    expect(errors).toEqual([
      expect.objectContaining({
        custom_id: 'broken',
        response: expect.objectContaining({
          status_code: 502,
          body: expect.objectContaining({ error: expect.objectContaining({ code: 'provider_error', provider: 'deepseek' }) }),
        }),
        error: { code: 'provider_error', message: 'deepseek sent an answer that is not JSON.' },
      }),
    ]);
  });

  it('validates the create request and scopes files and batches to the caller key', async () => {
    upstream.on('POST /chat/completions', new CountingChat().handler);
    const { url } = await start();
    const client = sdk(url);
    const file = await client.files.create({ file: await toFile(Buffer.from(chatLine('x')), 'x.jsonl'), purpose: 'batch' });
    const e1 = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '48h' as '24h' }).catch((e) => e);
    expect(e1.status).toBe(400);
    expect(e1.error.param).toBe('completion_window');
    const e2 = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/embeddings', completion_window: '24h' }).catch((e) => e);
    expect(e2.status).toBe(400);
    expect(e2.error.param).toBe('endpoint');
    const other = sdk(url, 'sk-someone-else-entirely-0002');
    expect((await other.files.retrieve(file.id).catch((e) => e)).status).toBe(404);
    expect((await other.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' }).catch((e) => e)).status).toBe(404);
    expect((await other.files.list()).data).toEqual([]);
    const e3 = await client.files.create({ file: await toFile(Buffer.from('x'), 'x.jsonl'), purpose: 'nonsense' as 'batch' }).catch((e) => e);
    expect(e3.error.param).toBe('purpose');
  });

  it('lists files and batches newest first with limit and after, and deletes files', async () => {
    upstream.on('POST /chat/completions', new CountingChat().handler);
    const { url } = await start();
    const client = sdk(url);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await client.files.create({ file: await toFile(Buffer.from(chatLine(`l${i}`)), `f${i}.jsonl`), purpose: 'batch' })).id);
    const first = await client.files.list({ limit: 2 });
    expect(first.data.map((f) => f.id)).toEqual([ids[4], ids[3]]);
    expect(first.has_more).toBe(true);
    const all: string[] = [];
    for await (const f of client.files.list({ limit: 2 })) all.push(f.id);
    expect(all).toEqual([...ids].reverse());
    expect(await client.files.delete(ids[0]!)).toEqual({ id: ids[0], object: 'file', deleted: true });
    expect((await client.files.retrieve(ids[0]!).catch((e) => e)).status).toBe(404);
    const b1 = await client.batches.create({ input_file_id: ids[1]!, endpoint: '/v1/chat/completions', completion_window: '24h' });
    const b2 = await client.batches.create({ input_file_id: ids[2]!, endpoint: '/v1/chat/completions', completion_window: '24h' });
    const page = await client.batches.list({ limit: 1 });
    expect(page.data.map((b) => b.id)).toEqual([b2.id]);
    expect(page.has_more).toBe(true);
    const next = await client.batches.list({ limit: 1, after: b2.id });
    expect(next.data.map((b) => b.id)).toEqual([b1.id]);
    expect((await client.batches.list({ limit: 0 as number }).catch((e) => e)).status).toBe(400);
  });

  it('cancels: lines not started are never sent, the partial output is kept', async () => {
    chat = new CountingChat({ delayMs: 150 });
    upstream.on('POST /chat/completions', chat.handler);
    const { url } = await start({ batches: { concurrency: 1 } });
    const client = sdk(url);
    const input = Array.from({ length: 20 }, (_, i) => chatLine(`c-${i}`)).join('\n');
    const file = await client.files.create({ file: await toFile(Buffer.from(input), 'c.jsonl'), purpose: 'batch' });
    const batch = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    await until(
      async () => chat.answered,
      (n) => n >= 2,
    );
    const cancelling = await client.batches.cancel(batch.id);
    expect(['cancelling', 'cancelled']).toContain(cancelling.status);
    const cancelled = await until(
      () => client.batches.retrieve(batch.id),
      (b) => b.status === 'cancelled',
    );
    expect(cancelled.cancelled_at).toBeGreaterThan(0);
    const sent = [...chat.seen.keys()].length;
    expect(sent).toBeLessThan(20);
    expect(cancelled.request_counts!.completed).toBe(sent);
    const output = jsonl(await (await client.files.content(cancelled.output_file_id!)).text());
    expect(output).toHaveLength(sent);
    await new Promise((r) => setTimeout(r, 400));
    expect([...chat.seen.keys()].length).toBe(sent);
    const again = await client.batches.cancel(batch.id);
    expect(again.status).toBe('cancelled');
  });

  it('serves files and batches itself for a provider that has them when x-gateway-batch-mode: gateway is sent', async () => {
    chat = new CountingChat();
    upstream.on('POST /v1/chat/completions', chat.handler);
    const dataDir = mkdtempSync(join(tmpdir(), 'gw-batch-'));
    dirs.push(dataDir);
    const gw = await gatewayOn(dataDir, { providers: { openai: { baseUrl: `${upstream.url}/v1` } } });
    gateways.push(gw.gateway);
    const client = new OpenAI({
      baseURL: `${gw.url}/v1`,
      apiKey: 'sk-openai-owner-000000001',
      defaultHeaders: { 'x-gateway-provider': 'openai', 'x-gateway-batch-mode': 'gateway' },
      maxRetries: 0,
    });
    const file = await client.files.create({ file: await toFile(Buffer.from([chatLine('o-1'), chatLine('o-2')].join('\n')), 'o.jsonl'), purpose: 'batch' });
    expect(file.id).toMatch(/^file-gw-/);
    const batch = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    const done = await until(
      () => client.batches.retrieve(batch.id),
      (b) => b.status === 'completed',
    );
    expect(done.request_counts).toEqual({ total: 2, completed: 2, failed: 0 });
    expect(upstream.received('POST /v1/files')).toHaveLength(0);
    expect(upstream.received('POST /v1/batches')).toHaveLength(0);
    expect(chat.count('o-1')).toBe(1);
  });

  it('without a secret, a batch found unfinished after a restart waits for its owner, then resumes; no line runs twice', async () => {
    chat = new CountingChat({ delayMs: 60 });
    upstream.on('POST /chat/completions', chat.handler);
    const first = await start({ batches: { concurrency: 2 } });
    const client = sdk(first.url);
    const ids = Array.from({ length: 16 }, (_, i) => `r-${i}`);
    const file = await client.files.create({ file: await toFile(Buffer.from(ids.map((id) => chatLine(id)).join('\n')), 'r.jsonl'), purpose: 'batch' });
    const batch = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    await until(
      async () => chat.answered,
      (n) => n >= 4,
    );
    // A graceful stop: lines in flight finish and are recorded.
    await gateways.pop()!.close(5000);
    const answeredBeforeRestart = chat.answered;
    await new Promise((r) => setTimeout(r, 200));
    expect(chat.answered).toBe(answeredBeforeRestart);

    const second = await start({ batches: { concurrency: 2 } }, {}, first.dataDir);
    expect(second.logs.text).toContain('waits for its owner');
    await new Promise((r) => setTimeout(r, 300));
    expect(chat.answered).toBe(answeredBeforeRestart);
    const resumed = sdk(second.url);
    const done = await until(
      () => resumed.batches.retrieve(batch.id),
      (b) => b.status === 'completed',
    );
    expect(done.request_counts).toEqual({ total: 16, completed: 16, failed: 0 });
    for (const id of ids) expect(chat.count(id)).toBe(1);
    const output = jsonl(await (await resumed.files.content(done.output_file_id!)).text());
    expect(output.map((l) => l.custom_id)).toEqual(ids);
    expect(second.logs.text).not.toContain(KEY);
  });
});
