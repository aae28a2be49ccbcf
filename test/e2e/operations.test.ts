import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rmSync } from 'node:fs';
import { connect } from 'node:net';
import { FakeUpstream, sseChunks } from '../helpers/fake-upstream.js';
import { fixtureJson } from '../helpers/fixtures.js';
import { startGateway, type TestGateway } from '../helpers/start-gateway.js';

const KEY = 'sk-ops-test-key-123456';
const CHAT = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] };

/** The value of one sample line of /metrics text, e.g. metric('gateway_requests_total', {route: ...}). */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const inner = line.slice(name.length + 1, line.lastIndexOf('}'));
    const found = Object.fromEntries([...inner.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([k, v]) => found[k] === v) && Object.keys(found).length === Object.keys(labels).length) {
      return Number(line.slice(line.lastIndexOf(' ') + 1));
    }
  }
  return undefined;
}

describe('operations: /health, /ready, /metrics, request ids', () => {
  let upstream: FakeUpstream;
  let gw: TestGateway;

  beforeAll(async () => {
    upstream = await new FakeUpstream()
      .on('POST /v1/chat/completions', { json: fixtureJson('openai', 'chat') })
      .on('POST /v1/embeddings', { json: { error: { message: 'boom', type: 'server_error' } }, status: 500 })
      .start();
    gw = await startGateway({ providers: { openai: { baseUrl: `${upstream.url}/v1` } } });
  });
  afterAll(async () => {
    await gw?.close();
    await upstream?.stop();
  });

  const chat = (path = '/v1/chat/completions', body: unknown = CHAT) =>
    fetch(`${gw.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-gateway-provider': 'openai', 'x-gateway-api-key': KEY },
      body: JSON.stringify(body),
    });
  const metrics = async () => {
    const res = await fetch(`${gw.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    return res.text();
  };

  it('/health answers 200 while the process runs', async () => {
    const res = await fetch(`${gw.url}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('/ready answers 200 with its checks once everything is up', async () => {
    const res = await fetch(`${gw.url}/ready`);
    expect(res.status).toBe(200);
    const body: any = await res.json();
    expect(body.status).toBe('ready');
    expect(body.checks.config).toBe(true);
    expect(Object.values(body.checks).every((v) => v === true)).toBe(true);
  });

  it('/ready answers 503 and names the check while a part is down', async () => {
    let storeUp = false;
    gw.gateway.services.readiness.set('test-store', () => storeUp);
    try {
      const down = await fetch(`${gw.url}/ready`);
      expect(down.status).toBe(503);
      // The contract's error body, naming what is not up, with each check beside it.
      const body: any = await down.json();
      expect(body).toEqual({
        status: 'failure',
        message: 'The gateway is not ready: test-store is not up.',
        error: { type: 'service_unavailable', code: 'service_unavailable', message: 'The gateway is not ready: test-store is not up.', param: null, provider: null },
        checks: expect.objectContaining({ 'test-store': false, config: true }),
      });
      storeUp = true;
      expect((await fetch(`${gw.url}/ready`)).status).toBe(200);
    } finally {
      gw.gateway.services.readiness.delete('test-store');
    }
  });

  it('a request moves gateway_requests_total and the duration histograms, with route, provider and status labels', async () => {
    const route = { route: 'POST /v1/chat/completions', provider: 'openai', status: '200' };
    const before = sample(await metrics(), 'gateway_requests_total', route) ?? 0;
    const ok = await chat();
    expect(ok.status).toBe(200);
    await ok.arrayBuffer();
    const failed = await chat('/v1/embeddings', { model: 'text-embedding-3-small', input: 'x' });
    expect(failed.status).toBe(502);
    await failed.arrayBuffer();
    const noProvider = await fetch(`${gw.url}/v1/models`);
    expect(noProvider.status).toBe(400);
    await noProvider.arrayBuffer();

    const text = await metrics();
    expect(sample(text, 'gateway_requests_total', route)).toBe(before + 1);
    expect(sample(text, 'gateway_requests_total', { route: 'POST /v1/embeddings', provider: 'openai', status: '502' })).toBe(1);
    expect(sample(text, 'gateway_requests_total', { route: 'GET /v1/models', provider: 'none', status: '400' })).toBe(1);
    expect(text).toContain('# TYPE gateway_request_duration_seconds histogram');
    expect(sample(text, 'gateway_request_duration_seconds_count', route)).toBe(before + 1);
    expect(sample(text, 'gateway_request_duration_seconds_bucket', { ...route, le: '+Inf' })).toBe(before + 1);
    expect(text).toContain('# TYPE gateway_upstream_duration_seconds histogram');
    expect(sample(text, 'gateway_upstream_duration_seconds_count', { provider: 'openai', operation: 'embeddings' })).toBe(1);
    // Node's process metrics keep their standard names (no gateway_ prefix before them).
    expect(text).toMatch(/^process_cpu_seconds_total /m);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds /m);
    expect(text).not.toContain('gateway_process_');
  });

  it('the requestId in the log line equals the x-gateway-request-id header, for answers and errors', async () => {
    const ids: string[] = [];
    for (const res of [await chat(), await chat('/v1/embeddings', { model: 'm', input: 'x' }), await fetch(`${gw.url}/v1/models`)]) {
      await res.arrayBuffer();
      ids.push(res.headers.get('x-gateway-request-id')!);
    }
    expect(new Set(ids).size).toBe(3);
    const records = gw.logs.records().filter((r) => r.msg === 'request');
    for (const id of ids) {
      const line = records.find((r) => r.requestId === id);
      expect(line).toBeDefined();
      expect(line).toMatchObject({ requestId: id, route: expect.any(String), status: expect.any(Number), ms: expect.any(Number) });
    }
  });
});

describe('draining (gateway.close(), what SIGTERM runs)', () => {
  it('/ready turns 503 and the in-flight stream completes; new connections are refused', async () => {
    const chunk = (content: string) => ({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content }, finish_reason: null }] });
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const upstream = await new FakeUpstream()
      .on('POST /v1/chat/completions', async (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(sseChunks([chunk('first')], false)[0]);
        await released;
        for (const text of sseChunks([chunk('last')])) res.write(text);
        res.end();
      })
      .start();
    const gw = await startGateway({ providers: { openai: { baseUrl: `${upstream.url}/v1` } } });
    const port = new URL(gw.url).port;
    try {
      // One keep-alive connection: a streamed request, then (pipelined behind it) GET /ready.
      const socket = connect(Number(port), '127.0.0.1');
      let received = '';
      socket.on('data', (d) => (received += d.toString('utf8')));
      const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));
      const body = JSON.stringify({ ...CHAT, stream: true });
      socket.write(
        `POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\nx-gateway-provider: openai\r\nx-gateway-api-key: ${KEY}\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
      while (!received.includes('"first"')) await new Promise((r) => setTimeout(r, 10));

      const closing = gw.gateway.close(10_000);
      socket.write('GET /ready HTTP/1.1\r\nhost: x\r\n\r\n');
      const refused = await fetch(`${gw.url}/health`).then(
        () => 'answered',
        (err) => (err as { cause?: { code?: string } }).cause?.code,
      );
      expect(refused).toBe('ECONNREFUSED');

      release();
      await closing;
      await ended;
      const [stream, ready] = received.split('HTTP/1.1 ').filter(Boolean);
      expect(stream).toMatch(/^200 /);
      expect(stream).toContain('"last"');
      expect(stream).toContain('data: [DONE]');
      expect(ready).toMatch(/^503 /);
      expect(ready).toContain('"accepting":false');
      const readyBody = JSON.parse(ready!.slice(ready!.indexOf('\r\n\r\n') + 4).trim()) as any;
      expect(readyBody).toMatchObject({
        status: 'failure',
        message: 'The gateway is shutting down and accepts no new requests.',
        error: { type: 'service_unavailable', code: 'service_unavailable', param: null, provider: null },
        checks: { accepting: false },
      });
    } finally {
      await upstream.stop();
      rmSync(gw.dataDir, { recursive: true, force: true });
    }
  });
});
