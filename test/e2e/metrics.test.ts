import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import OpenAI, { toFile } from 'openai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { FakeUpstream, sseChunks } from '../helpers/fake-upstream.js';
import { fixtureJson } from '../helpers/fixtures.js';
import { startGateway, type TestGateway } from '../helpers/start-gateway.js';
import { HttpToolServer } from '../helpers/http-tool-server.js';
import { connectClient, eventually, textOf } from '../helpers/mcp.js';
import { chatLine, CountingChat } from '../helpers/batch-fakes.js';

const KEY = 'sk-metrics-test-key-0001';
const LIMITED_KEY = 'sk-metrics-limited-key-0002';

/** Every sample of `name` in /metrics text, as label objects with their value. */
function samples(text: string, name: string): Array<{ labels: Record<string, string>; value: number }> {
  const out: Array<{ labels: Record<string, string>; value: number }> = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const close = line.lastIndexOf('}');
    const inner = close > 0 ? line.slice(name.length + 1, close) : '';
    const labels = Object.fromEntries([...inner.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1]!, m[2]!]));
    out.push({ labels, value: Number(line.slice(line.lastIndexOf(' ') + 1)) });
  }
  return out;
}

function value(text: string, name: string, labels: Record<string, string>): number {
  const found = samples(text, name).find((s) => Object.keys(labels).length === Object.keys(s.labels).length && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  return found?.value ?? 0;
}

describe("/metrics answers operators' questions after real requests", () => {
  let upstream: FakeUpstream;
  let flaky: FakeUpstream;
  let tools: HttpToolServer;
  let gw: TestGateway;
  let mcp: Client;
  const batchChat = new CountingChat({ rateLimit: { 'line-2': 1 } });

  beforeAll(async () => {
    upstream = await new FakeUpstream()
      .on('POST /v1/chat/completions', (req, res) => {
        const body = req.json();
        if (body.stream) {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          const base = { id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini-2024-07-18' };
          for (const line of sseChunks([
            { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: 'Hi' }, finish_reason: null }] },
            { ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
            { ...base, choices: [], usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 } },
          ]))
            res.write(line);
          res.end();
          return;
        }
        if (body.model === 'busy-model') {
          res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '3' });
          res.end(JSON.stringify({ error: { message: 'Rate limit reached for requests', type: 'requests', code: 'rate_limit_exceeded' } }));
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(fixtureJson('openai', 'chat')));
      })
      .start();
    flaky = await new FakeUpstream().on('POST /chat/completions', { json: { error: { message: 'down' } }, status: 503 }).start();
    upstream.on('POST /chat/completions', batchChat.handler);
    tools = await new HttpToolServer().start();
    gw = await startGateway({
      providers: { openai: { baseUrl: `${upstream.url}/v1` }, deepseek: { baseUrl: upstream.url }, groq: { baseUrl: flaky.url, apiKey: 'gsk-metrics-flaky-0003' } },
      rateLimits: [{ per: 'key', limit: 1, window: '1h', routes: ['/v1/embeddings'] }],
      routing: { circuitBreaker: { failureThreshold: 2, cooldown: '60s' } },
      configs: { cached: { cache: { mode: 'simple', max_age: 60 }, targets: [{ provider: 'openai' }] } },
      mcpServers: { tools: { url: tools.url } },
      metrics: { models: ['gpt-4o-mini'] },
    });
    mcp = await connectClient(`${gw.url}/mcp`);
  });
  afterAll(async () => {
    await mcp?.close();
    await gw?.close();
    await tools?.stop();
    await flaky?.stop();
    await upstream?.stop();
  });

  const scrape = async () => {
    const res = await fetch(`${gw.url}/metrics`);
    expect(res.status).toBe(200);
    return res.text();
  };
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${gw.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-gateway-provider': 'openai', 'x-gateway-api-key': KEY, ...headers },
      body: JSON.stringify(body),
    });

  it('counts input and output tokens by provider and the model asked for (a model the config names), for JSON answers and streams', async () => {
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: KEY, defaultHeaders: { 'x-gateway-provider': 'openai' }, maxRetries: 0 });
    const before = await scrape();
    const labels = { provider: 'openai', model: 'gpt-4o-mini' };
    const answer = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] });
    expect(answer.usage).toMatchObject({ prompt_tokens: 9, completion_tokens: 9 });
    const stream = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Hi' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    for await (const _chunk of stream) {
      // read it whole
    }
    const after = await scrape();
    expect(value(after, 'gateway_tokens_total', { direction: 'input', ...labels }) - value(before, 'gateway_tokens_total', { direction: 'input', ...labels })).toBe(9 + 7);
    expect(value(after, 'gateway_tokens_total', { direction: 'output', ...labels }) - value(before, 'gateway_tokens_total', { direction: 'output', ...labels })).toBe(9 + 3);
    expect(after).toContain('# TYPE gateway_tokens_total counter');
  });

  it('counts answer-cache lookups by status (a hit adds no tokens)', async () => {
    const body = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'cache me' }] };
    const first = await post('/v1/chat/completions', body, { 'x-gateway-config': 'cached' });
    expect(first.headers.get('x-gateway-cache-status')).toBe('MISS');
    await first.arrayBuffer();
    const mid = await scrape();
    const second = await post('/v1/chat/completions', body, { 'x-gateway-config': 'cached' });
    expect(second.headers.get('x-gateway-cache-status')).toBe('HIT');
    await second.arrayBuffer();
    const after = await scrape();
    expect(value(after, 'gateway_cache_requests_total', { status: 'miss' })).toBe(1);
    expect(value(after, 'gateway_cache_requests_total', { status: 'hit' })).toBe(1);
    expect(samples(after, 'gateway_tokens_total')).toEqual(samples(mid, 'gateway_tokens_total'));
  });

  it("tells the gateway's own rate limit from a provider's 429, in the answer and in the metrics", async () => {
    const own1 = await post('/v1/embeddings', { model: 'text-embedding-3-small', input: 'x' }, { 'x-gateway-api-key': LIMITED_KEY });
    await own1.arrayBuffer();
    const own2 = await post('/v1/embeddings', { model: 'text-embedding-3-small', input: 'x' }, { 'x-gateway-api-key': LIMITED_KEY });
    expect(own2.status).toBe(429);
    const ownBody: any = await own2.json();
    expect(ownBody.error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limit_exceeded', provider: null });

    const upstream429 = await post('/v1/chat/completions', { model: 'busy-model', messages: [{ role: 'user', content: 'Hi' }] });
    expect(upstream429.status).toBe(429);
    expect(upstream429.headers.get('retry-after')).toBe('3');
    const upstreamBody: any = await upstream429.json();
    expect(upstreamBody.error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limit_exceeded', provider: 'openai' });

    const text = await scrape();
    expect(value(text, 'gateway_rate_limited_total', { scope: 'key' })).toBe(1);
    expect(value(text, 'gateway_upstream_rate_limited_total', { provider: 'openai' })).toBe(1);
    expect(samples(text, 'gateway_rate_limited_total').map((s) => s.labels.scope)).toEqual(['key']);
  });

  it('shows each target circuit: closed, then open once failures reach the threshold', async () => {
    const groqState = async () => samples(await scrape(), 'gateway_circuit_state').find((c) => c.labels.provider === 'groq' && c.labels.target === 'header');
    const fail = async () => {
      const res = await post(
        '/v1/chat/completions',
        { model: 'llama', messages: [{ role: 'user', content: 'Hi' }] },
        { 'x-gateway-provider': 'groq', 'x-gateway-api-key': 'gsk-metrics-flaky-0003' },
      );
      expect(res.status).toBe(502);
      await res.arrayBuffer();
    };
    await fail();
    expect((await groqState())?.value).toBe(0);
    await fail();
    const groq = await groqState();
    expect(groq?.value).toBe(1);
    const text = await scrape();
    for (const circuit of samples(text, 'gateway_circuit_state')) expect(Object.keys(circuit.labels).sort()).toEqual(['provider', 'target']);
    expect(text).not.toContain(flaky.url);
    expect(text).not.toContain(flaky.url.replace('http://', ''));
  });

  it('counts tool calls on /mcp by server, tool and outcome', async () => {
    expect(textOf(await mcp.callTool({ name: 'tools__echo', arguments: { text: 'hi' } }))).toBe('echo: hi');
    expect(textOf(await mcp.callTool({ name: 'tools__echo', arguments: { text: 'again' } }))).toBe('echo: again');
    const leak = await mcp.callTool({ name: 'tools__leak', arguments: {} }).catch((err: Error) => err);
    const text = await scrape();
    expect(value(text, 'gateway_mcp_calls_total', { server: 'tools', tool: 'echo', outcome: 'ok' })).toBe(2);
    const leakOutcome = leak instanceof Error ? 'error' : 'tool_error';
    expect(value(text, 'gateway_mcp_calls_total', { server: 'tools', tool: 'leak', outcome: leakOutcome })).toBe(1);
  });

  it('counts the lines of a batch the gateway runs, by status', async () => {
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: 'sk-deepseek-metrics-0004', defaultHeaders: { 'x-gateway-provider': 'deepseek' }, maxRetries: 0 });
    const input = `${[chatLine('line-1'), chatLine('line-2'), chatLine('line-3', { temperature: 5 })].join('\n')}\n`;
    const file = await client.files.create({ file: await toFile(Buffer.from(input), 'lines.jsonl'), purpose: 'batch' });
    const batch = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    await eventually(async () => (await client.batches.retrieve(batch.id)).status === 'completed', 20_000, 'the batch to complete');
    const text = await scrape();
    expect(value(text, 'gateway_batch_lines_total', { status: 'succeeded' })).toBe(2);
    expect(value(text, 'gateway_batch_lines_total', { status: 'failed' })).toBe(1);
    expect(value(text, 'gateway_batch_lines_total', { status: 'rate_limited' })).toBe(1);
  });

  it('keeps requests_total and the duration histogram on route, provider and status, and Node metrics on their standard names', async () => {
    const text = await scrape();
    expect(value(text, 'gateway_requests_total', { route: 'POST /v1/embeddings', provider: 'none', status: '429' })).toBe(1);
    expect(value(text, 'gateway_request_duration_seconds_count', { route: 'POST /v1/chat/completions', provider: 'openai', status: '429' })).toBe(1);
    expect(text).toMatch(/^process_resident_memory_bytes \d+/m);
    expect(text).toMatch(/^nodejs_heap_size_used_bytes \d+/m);
    // Names follow Prometheus conventions: snake case, counters end in _total, units spelled out.
    const names = [...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].filter((m) => m[1]!.startsWith('gateway_'));
    for (const [, name, type] of names) {
      expect(name).toMatch(/^gateway_[a-z0-9_]+$/);
      expect(name).not.toMatch(/gateway_process_|gateway_nodejs_/);
      if (type === 'counter') expect(name).toMatch(/_total$/);
      if (type === 'histogram') expect(name).toMatch(/_seconds$/);
    }
  });

  it('the Grafana dashboard in examples/ queries only series this scrape has', async () => {
    const dashboard = JSON.parse(readFileSync(new URL('../../examples/grafana/gateway-dashboard.json', import.meta.url), 'utf8'));
    const exprs: string[] = dashboard.panels.flatMap((p: any) => p.targets.map((t: any) => t.expr));
    expect(exprs.length).toBeGreaterThan(10);
    const text = await scrape();
    const types = new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]!));
    const used = new Set(exprs.flatMap((e) => [...e.matchAll(/\b((?:gateway|process|nodejs)_[a-z0-9_]+)\{/g)].map((m) => m[1]!)));
    for (const name of used) expect(types.has(name.replace(/_(bucket|count|sum)$/, '')), name).toBe(true);
    for (const name of [
      'gateway_tokens_total',
      'gateway_cache_requests_total',
      'gateway_rate_limited_total',
      'gateway_upstream_rate_limited_total',
      'gateway_circuit_state',
      'gateway_mcp_calls_total',
      'gateway_batch_lines_total',
    ]) {
      expect(used.has(name), name).toBe(true);
      // and each one has samples after the requests above
      expect(samples(text, name).length, name).toBeGreaterThan(0);
    }
  });
});
