import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI, { toFile } from 'openai';
import { FakeUpstream } from '../helpers/fake-upstream.js';
import { buildGateway, freePort, spawnGateway, waitForHealth, type GatewayProcess } from '../helpers/built-gateway.js';
import { chatLine, CountingChat, jsonl } from '../helpers/batch-fakes.js';

const KEY = 'sk-deepseek-restart-owner-0001';
const LINES = 60;

describe('a gateway-run batch survives SIGKILL of the gateway process', () => {
  let upstream: FakeUpstream;
  let dir: string;
  const procs: GatewayProcess[] = [];

  beforeAll(async () => {
    buildGateway();
    upstream = await new FakeUpstream().start();
    dir = mkdtempSync(join(tmpdir(), 'gw-restart-'));
  }, 180_000);
  afterAll(async () => {
    for (const p of procs) p.kill();
    await upstream?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('resumes after a restart: every line has exactly one result, none was sent twice', async () => {
    const chat = new CountingChat({ delayMs: 80 });
    upstream.on('POST /chat/completions', chat.handler);
    const config = join(dir, 'gateway.json');
    writeFileSync(
      config,
      JSON.stringify({ server: { host: '127.0.0.1' }, providers: { deepseek: { baseUrl: upstream.url } }, batches: { concurrency: 4 }, logging: { level: 'warn' } }),
    );
    const port = await freePort();
    const env = { GATEWAY_DATA_DIR: join(dir, 'data'), GATEWAY_PORT: String(port), GATEWAY_SECRET_KEY: 'restart-test-secret-of-this-gateway' };
    const url = `http://127.0.0.1:${port}`;
    const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: KEY, defaultHeaders: { 'x-gateway-provider': 'deepseek' }, maxRetries: 0 });

    const first = spawnGateway(['--config', config], { env });
    procs.push(first);
    await waitForHealth(url, first);
    const ids = Array.from({ length: LINES }, (_, i) => `k-${i}`);
    const file = await client.files.create({ file: await toFile(Buffer.from(ids.map((id) => chatLine(id)).join('\n')), 'k.jsonl'), purpose: 'batch' });
    const batch = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });

    // Kill it hard in the middle: some lines answered, some in flight, most not started.
    while (chat.answered < 15) await new Promise((r) => setTimeout(r, 10));
    first.child.kill('SIGKILL');
    await first.exited;
    const sentBeforeKill = new Map(chat.seen);
    expect(sentBeforeKill.size).toBeLessThan(LINES);

    const second = spawnGateway(['--config', config], { env });
    procs.push(second);
    await waitForHealth(url, second);
    let done = await client.batches.retrieve(batch.id);
    const end = Date.now() + 60_000;
    while (done.status !== 'completed' && Date.now() < end) {
      await new Promise((r) => setTimeout(r, 100));
      done = await client.batches.retrieve(batch.id);
    }
    expect(done.status).toBe('completed');
    expect(done.request_counts!.total).toBe(LINES);
    expect(done.request_counts!.completed + done.request_counts!.failed).toBe(LINES);

    const output = jsonl(await (await client.files.content(done.output_file_id!)).text());
    const errors = done.error_file_id ? jsonl(await (await client.files.content(done.error_file_id)).text()) : [];
    // No line lost: each custom_id has exactly one result, in the output or the error file.
    expect([...output, ...errors].map((l) => l.custom_id).sort()).toEqual([...ids].sort());
    // None sent twice.
    for (const id of ids) expect(chat.count(id)).toBeLessThanOrEqual(1);
    // The restarted gateway did the rest of the work.
    expect(chat.seen.size).toBeGreaterThan(sentBeforeKill.size);
    for (const line of output) expect(line.response.body.choices[0].message.content).toBe(`answer to ${line.custom_id}`);
    // Only lines caught in flight by the kill can fail, and they say so; they were not re-sent.
    for (const line of errors) {
      expect(line.error.code).toBe('batch_line_interrupted');
      expect(sentBeforeKill.has(line.custom_id) || chat.count(line.custom_id) === 0).toBe(true);
    }
    expect(errors.length).toBeLessThanOrEqual(4);
    expect(second.stdout() + second.stderr()).not.toContain(KEY);
  }, 120_000);
});
