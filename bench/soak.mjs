// The soak: a mixed load on one gateway for SOAK_MINUTES (default 10), printing every minute the
// gateway's RSS and peak RSS, the answers served and their latency percentiles. `npm run soak`
// builds dist/ and runs this file.
//
// The load (closed loop, SOAK_CONCURRENCY workers, default 8, each sending the next request as
// soon as the last one is answered) cycles through:
//   chat            POST /v1/chat/completions (openai, JSON passed through)
//   stream          the same with stream: true (OpenAI SSE)
//   anthropic       a chat stream to anthropic (request and Messages SSE translated)
//   failover        a fallback routing config whose first target answers 503
//   mcp             POST /mcp tools/call through the aggregated tool server
// and every SOAK_BATCH_SECONDS (default 30) one gateway-run batch (deepseek has no batch API: the
// gateway runs its lines itself): a 20-line JSONL file uploaded, the batch created, and its end
// awaited while the rest of the load goes on.
//
// Verdict: RSS must not grow after the first two minutes: the highest RSS of the later minutes
// against the RSS at the end of minute 2 (a tolerance of SOAK_RSS_TOLERANCE_MB, default 8 MB, for
// the collector's own rhythm). Exits 1 when RSS grew, an answer failed, or a batch did not finish.
//
// Environment: SOAK_MINUTES (default 10), SOAK_INTERVAL_SECONDS (the report period, default 60;
// shorter for a quick check), SOAK_CONCURRENCY (default 8), SOAK_BATCH_SECONDS (default 30),
// SOAK_LOG_LEVEL (the gateway's logging.level, default info).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Pool } from 'undici';
import { ROOT, startFake, startGateway, stopAll } from './lib/children.mjs';
import { openaiChatBody, OPENAI_HEADERS } from './lib/requests.mjs';
import { formatTable } from './lib/table.mjs';

function number(name, fallback, min, max) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < min || n > max) throw new Error(`${name} must be a number from ${min} to ${max}`);
  return n;
}

const MINUTES = number('SOAK_MINUTES', 10, 0.05, 24 * 60);
const INTERVAL_MS = number('SOAK_INTERVAL_SECONDS', 60, 1, 3600) * 1000;
const CONCURRENCY = number('SOAK_CONCURRENCY', 8, 1, 512);
const BATCH_MS = number('SOAK_BATCH_SECONDS', 30, 1, 3600) * 1000;
const TOLERANCE_MB = number('SOAK_RSS_TOLERANCE_MB', 8, 0, 1024);
const LOG_LEVEL = process.env.SOAK_LOG_LEVEL || 'info';

const ANTHROPIC_KEY = 'sk-ant-soak-0123456789abcdefghijklmnop';
const DEEPSEEK_KEY = 'sk-deepseek-soak-0123456789abcdef';
// The first target (mistral-ai, pointed at the fake's failing route) answers 503; the second answers.
const FAILOVER_CONFIG = JSON.stringify({
  strategy: { mode: 'fallback' },
  targets: [
    { provider: 'mistral-ai', api_key: 'mistral-soak-0123456789abcdef' },
    { provider: 'groq', api_key: 'gsk-soak-0123456789abcdef' },
  ],
});
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };

const json = (body) => Buffer.from(JSON.stringify(body));

/** The kinds of request the workers cycle through: what is sent, and how a good answer looks. */
const KINDS = [
  {
    name: 'chat',
    method: 'POST',
    path: '/v1/chat/completions',
    headers: OPENAI_HEADERS,
    body: json(openaiChatBody()),
    ok: (status, text) => status === 200 && text.includes('"choices"'),
  },
  {
    name: 'stream',
    method: 'POST',
    path: '/v1/chat/completions',
    headers: OPENAI_HEADERS,
    body: json(openaiChatBody({ stream: true })),
    ok: (status, text) => status === 200 && text.trimEnd().endsWith('data: [DONE]'),
  },
  {
    name: 'anthropic',
    method: 'POST',
    path: '/v1/chat/completions',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${ANTHROPIC_KEY}`, 'x-gateway-provider': 'anthropic' },
    body: json(openaiChatBody({ stream: true, model: 'claude-sonnet-4-20250514' })),
    ok: (status, text) => status === 200 && text.trimEnd().endsWith('data: [DONE]'),
  },
  {
    name: 'failover',
    method: 'POST',
    path: '/v1/chat/completions',
    headers: { ...OPENAI_HEADERS, 'x-gateway-config': FAILOVER_CONFIG },
    body: json(openaiChatBody()),
    ok: (status, text, headers) => status === 200 && headers['x-gateway-target-index'] === '1' && text.includes('"choices"'),
  },
  {
    name: 'mcp',
    method: 'POST',
    path: '/mcp',
    headers: MCP_HEADERS,
    body: json({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'bench__echo', arguments: { text: 'soak' } } }),
    ok: (status, text) => status === 200 && text.includes('echo: soak'),
  },
];
for (const kind of KINDS) kind.headers = { ...kind.headers, 'content-length': String(kind.body.length) };

/** Latencies of one period, per kind and overall (ms). */
class Period {
  constructor() {
    this.all = [];
    this.errors = 0;
    this.lastError = undefined;
  }
}

function percentile(sorted, p) {
  if (!sorted.length) return null;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

function rssOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const mb = (key) => Number(new RegExp(`${key}:\\s+(\\d+)\\s+kB`).exec(status)?.[1] ?? NaN) / 1024;
  return { rss: mb('VmRSS'), hwm: mb('VmHWM') };
}

async function worker(pool, offset, state) {
  let i = offset;
  while (!state.stopped) {
    const kind = KINDS[i++ % KINDS.length];
    const started = performance.now();
    try {
      const res = await pool.request({ method: kind.method, path: kind.path, headers: kind.headers, body: kind.body });
      const text = await res.body.text();
      const ms = performance.now() - started;
      const period = state.period;
      if (kind.ok(res.statusCode, text, res.headers)) period.all.push(ms);
      else {
        period.errors++;
        period.lastError = `${kind.name}: ${res.statusCode} ${text.slice(0, 200)}`;
      }
    } catch (err) {
      state.period.errors++;
      state.period.lastError = `${kind.name}: ${err?.message ?? err}`;
    }
  }
}

/** A multipart upload of a JSONL batch input file. */
function batchFile(lines) {
  const boundary = `soak${Date.now().toString(36)}`;
  const content = lines.map((l) => JSON.stringify(l)).join('\n');
  const body = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="purpose"\r\n\r\nbatch\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="soak.jsonl"\r\nContent-Type: application/jsonl\r\n\r\n${content}\r\n` +
      `--${boundary}--\r\n`,
  );
  return { body, contentType: `multipart/form-data; boundary=${boundary}` };
}

async function runBatch(pool, n) {
  const headers = { authorization: `Bearer ${DEEPSEEK_KEY}`, 'x-gateway-provider': 'deepseek' };
  const lines = Array.from({ length: 20 }, (_, i) => ({
    custom_id: `soak-${n}-${i}`,
    method: 'POST',
    url: '/v1/chat/completions',
    body: { ...openaiChatBody(), model: 'deepseek-chat' },
  }));
  const { body, contentType } = batchFile(lines);
  const up = await pool.request({ method: 'POST', path: '/v1/files', headers: { ...headers, 'content-type': contentType, 'content-length': String(body.length) }, body });
  const file = await up.body.json();
  if (up.statusCode !== 200) throw new Error(`file upload: ${up.statusCode} ${JSON.stringify(file).slice(0, 200)}`);
  const createBody = json({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
  const created = await pool.request({
    method: 'POST',
    path: '/v1/batches',
    headers: { ...headers, 'content-type': 'application/json', 'content-length': String(createBody.length) },
    body: createBody,
  });
  const batch = await created.body.json();
  if (created.statusCode !== 200) throw new Error(`batch create: ${created.statusCode} ${JSON.stringify(batch).slice(0, 200)}`);
  const deadline = Date.now() + 120_000;
  for (;;) {
    const res = await pool.request({ method: 'GET', path: `/v1/batches/${batch.id}`, headers });
    const now = await res.body.json();
    if (['completed', 'failed', 'expired', 'cancelled'].includes(now.status)) {
      if (now.status !== 'completed' || now.request_counts?.completed !== lines.length) throw new Error(`batch ${batch.id}: ${now.status} ${JSON.stringify(now.request_counts)}`);
      return;
    }
    if (Date.now() > deadline) throw new Error(`batch ${batch.id} still ${now.status} after 120 s`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function main() {
  const fake = await startFake([join(ROOT, 'bench', 'scenarios', 'mcp-tools-call.mjs')]);
  const config = {
    logging: { level: LOG_LEVEL },
    providers: {
      openai: { baseUrl: `${fake.url}/v1` },
      'mistral-ai': { baseUrl: `${fake.url}/status/503/v1` },
      anthropic: { baseUrl: fake.url },
      groq: { baseUrl: `${fake.url}/v1` },
      deepseek: { baseUrl: `${fake.url}/v1` },
    },
    mcpServers: { bench: { url: `${fake.url}/mcp` } },
    batches: { concurrency: 4 },
  };
  const gateway = await startGateway(config, { label: 'soak' });
  const pool = new Pool(gateway.url, { connections: CONCURRENCY + 2, keepAliveTimeout: 30_000 });
  const state = { stopped: false, period: new Period() };
  const rest = rssOf(gateway.pid);
  process.stdout.write(
    `Soak: ${MINUTES} min, a report every ${INTERVAL_MS / 1000} s, ${CONCURRENCY} workers (chat, stream, anthropic, failover, mcp) + a 20-line gateway-run batch every ${BATCH_MS / 1000} s; gateway logging.level ${LOG_LEVEL}\n`,
  );
  process.stdout.write(`Gateway RSS at rest: ${rest.rss.toFixed(1)} MB\n\n`);

  const batches = { started: 0, done: 0, failed: 0, lastError: undefined, running: new Set() };
  const startBatch = () => {
    const n = ++batches.started;
    const p = runBatch(pool, n)
      .then(() => batches.done++)
      .catch((err) => {
        batches.failed++;
        batches.lastError = err.message;
      })
      .finally(() => batches.running.delete(p));
    batches.running.add(p);
  };
  const workers = Array.from({ length: CONCURRENCY }, (_, i) => worker(pool, i, state));
  startBatch();
  const batchTimer = setInterval(startBatch, BATCH_MS);

  const rows = [];
  const started = performance.now();
  const totalMs = MINUTES * 60_000;
  let errors = 0;
  while (performance.now() - started < totalMs - 1) {
    const wait = Math.min(INTERVAL_MS, totalMs - (performance.now() - started));
    await new Promise((r) => setTimeout(r, wait));
    const period = state.period;
    state.period = new Period();
    const sorted = period.all.sort((a, b) => a - b);
    const mem = rssOf(gateway.pid);
    errors += period.errors;
    rows.push({
      at: (performance.now() - started) / 60_000,
      answers: sorted.length,
      rps: sorted.length / (wait / 1000),
      errors: period.errors,
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
      rss: mem.rss,
      hwm: mem.hwm,
      batches: batches.done,
      lastError: period.lastError,
    });
    const r = rows.at(-1);
    process.stdout.write(
      `min ${r.at.toFixed(1).padStart(5)}  answers ${String(r.answers).padStart(7)}  rps ${r.rps.toFixed(0).padStart(5)}  errors ${r.errors}  p50 ${r.p50?.toFixed(2) ?? '-'} ms  p99 ${r.p99?.toFixed(2) ?? '-'} ms  RSS ${r.rss.toFixed(1)} MB  peak ${r.hwm.toFixed(1)} MB  batches done ${r.batches}${r.lastError ? `  last error: ${r.lastError}` : ''}\n`,
    );
  }
  state.stopped = true;
  clearInterval(batchTimer);
  await Promise.all(workers);
  await Promise.allSettled([...batches.running]);
  await pool.close();
  const exit = await gateway.stop();
  await stopAll();

  process.stdout.write('\n');
  process.stdout.write(
    formatTable(
      [
        { title: 'minute', value: (r) => r.at, digits: 1 },
        { title: 'answers', value: (r) => r.answers, digits: 0 },
        { title: 'rps', value: (r) => r.rps, digits: 0 },
        { title: 'errors', value: (r) => r.errors, digits: 0 },
        { title: 'p50 ms', value: (r) => r.p50, digits: 2 },
        { title: 'p99 ms', value: (r) => r.p99, digits: 2 },
        { title: 'RSS MB', value: (r) => r.rss, digits: 1 },
        { title: 'peak RSS MB', value: (r) => r.hwm, digits: 1 },
        { title: 'batches done', value: (r) => r.batches, digits: 0 },
      ],
      rows,
    ),
  );
  process.stdout.write('\n');
  const loud = exit.logLines.filter((line) => !/^\{"level":(10|20|30),/.test(line));
  let failed = false;
  // RSS after the first two minutes (or the first fifth of a short run) against the highest later value.
  const settleMinutes = Math.min(2, MINUTES / 5);
  // (the row reported closest to that time: report times drift by a few ms)
  const settled = rows.reduce((best, r) => (Math.abs(r.at - settleMinutes) < Math.abs(best.at - settleMinutes) ? r : best), rows[0]);
  const later = rows.filter((r) => r.at > settled.at);
  if (later.length) {
    const highest = Math.max(...later.map((r) => r.rss));
    const growth = highest - settled.rss;
    const ok = growth <= TOLERANCE_MB;
    failed ||= !ok;
    process.stdout.write(
      `RSS at minute ${settled.at.toFixed(1)}: ${settled.rss.toFixed(1)} MB; highest after it: ${highest.toFixed(1)} MB (${growth >= 0 ? '+' : ''}${growth.toFixed(1)} MB; tolerance ${TOLERANCE_MB} MB): ${ok ? 'no growth' : 'GREW'}\n`,
    );
  }
  process.stdout.write(
    `Answers that failed: ${errors}; batches: ${batches.done} completed, ${batches.failed} failed of ${batches.started}${batches.lastError ? ` (last: ${batches.lastError})` : ''}\n`,
  );
  if (loud.length) process.stdout.write(`The gateway logged ${loud.length} line(s) at warn or above; first: ${loud[0].slice(0, 300)}\n`);
  if (errors > 0 || batches.failed > 0 || batches.done === 0) failed = true;
  if (failed) process.exitCode = 1;
}

let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    if (interrupted) return;
    interrupted = true;
    stopAll().finally(() => process.exit(130));
  });
}

main().catch(async (err) => {
  process.stderr.write(`soak failed: ${err?.stack ?? err}\n`);
  await stopAll();
  process.exit(1);
});
