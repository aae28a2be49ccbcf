import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeUpstream } from '../../helpers/fake-upstream.js';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';
import { answers, answerText, CHAT, chatBody, post, UPSTREAM_CHAT, upstreamError, waitFor } from '../../helpers/routing-harness.js';

const KEY = 'sk-visible-caller-key-0001';
const GROQ_KEY = 'gsk-visible-target-key-0002';
/** A gateway credential: a config's held key (groq's) is spent only for requests that bring one. */
const GATEWAY_KEY = 'gw-visible-config-key-0003';

/** The gateway's log lines, parsed. */
const records = (gw: TestGateway): any[] => gw.logs.records();

describe('a fallback everyone can see: warnings, the request line and x-gateway-debug', () => {
  let a: FakeUpstream;
  let b: FakeUpstream;
  let gw: TestGateway;

  beforeAll(async () => {
    [a, b] = await Promise.all([new FakeUpstream().start(), new FakeUpstream().start()]);
    gw = await startGateway({
      providers: { openai: { baseUrl: `${a.url}/v1` }, groq: { baseUrl: `${b.url}/v1` } },
      auth: { apiKeys: [{ key: GATEWAY_KEY, user: 'viewer@example.com' }] },
      routing: { circuitBreaker: { failureThreshold: 1, cooldown: '60s' } },
      configs: { primary: { strategy: { mode: 'fallback' }, targets: [{ provider: 'openai' }, { provider: 'groq', api_key: GROQ_KEY }] } },
    });
  });
  afterAll(async () => {
    await gw?.close();
    await Promise.all([a?.stop(), b?.stop()]);
  });
  const send = (headers: Record<string, string> = {}) =>
    post(gw.url, CHAT, chatBody(), { 'x-gateway-config': 'primary', 'x-gateway-provider': 'openai', 'x-gateway-api-key': KEY, 'x-gateway-token': GATEWAY_KEY, ...headers });

  it('a primary answering 503 writes a warning, its circuit opening another, and the request line has model, tokens and attempts', async () => {
    a.on(UPSTREAM_CHAT, upstreamError(503));
    b.on(UPSTREAM_CHAT, answers('from B'));
    const res = await send();
    expect(res.status).toBe(200);
    expect(answerText(res)).toBe('from B');
    const id = res.headers['x-gateway-request-id'];

    await waitFor(() => records(gw).some((r) => r.msg === 'request' && r.requestId === id));
    const lines = records(gw);
    const failed = lines.find((r) => r.msg === 'upstream attempt failed' && r.requestId === id);
    expect(failed).toMatchObject({ level: 40, provider: 'openai', target: '0', status: 503, reason: 'provider_error' });
    const opened = lines.find((r) => r.msg === 'circuit open');
    expect(opened).toMatchObject({ level: 40, circuit: 'open', provider: 'openai', target: 'primary:0', status: 503, reason: 'provider_error' });

    const line = lines.find((r) => r.msg === 'request' && r.requestId === id);
    expect(line).toMatchObject({ provider: 'groq', status: 200, retries: 1, model: { requested: 'gpt-4o-mini', answered: 'gpt-4o-mini' }, tokens: { input: 5, output: 7 } });
    expect(line.attempts).toHaveLength(2);
    expect(line.attempts[0]).toMatchObject({ target: '0', provider: 'openai', status: 503, reason: 'provider_error' });
    expect(line.attempts[1]).toMatchObject({ target: '1', provider: 'groq', status: 200 });
    expect(typeof line.attempts[1].ms).toBe('number');
    expect(gw.logs.text).not.toContain(KEY);
    expect(gw.logs.text).not.toContain(GROQ_KEY);
  });

  it('x-gateway-debug lists the target skipped because its circuit is open, and so does the request line', async () => {
    a.requests.length = 0;
    b.on(UPSTREAM_CHAT, upstreamError(500));
    const res = await send({ 'x-gateway-debug': 'true' });
    expect(res.status).toBe(502);
    expect(a.received(UPSTREAM_CHAT)).toHaveLength(0);
    const attempts = res.json.error.debug.attempts;
    expect(attempts).toHaveLength(2);
    expect(attempts[0]).toMatchObject({ provider: 'openai', targetIndex: '0', code: 'circuit_open', skipped: 'circuit_open' });
    expect(attempts[1]).toMatchObject({ provider: 'groq', targetIndex: '1', status: 500 });
    // The skipped target was not an upstream attempt.
    expect(res.headers['x-gateway-retry-count']).toBe('0');

    const id = res.headers['x-gateway-request-id'];
    await waitFor(() => records(gw).some((r) => r.msg === 'request' && r.requestId === id));
    const line = records(gw).find((r) => r.msg === 'request' && r.requestId === id);
    expect(line.attempts.map((x: any) => [x.target, x.provider, x.reason])).toEqual([
      ['0', 'openai', 'circuit_open'],
      ['1', 'groq', 'provider_error'],
    ]);
    expect(line.tokens).toBeUndefined();
  });
});

describe('x-gateway-retry-count', () => {
  let a: FakeUpstream;
  let b: FakeUpstream;
  let gw: TestGateway;

  beforeAll(async () => {
    [a, b] = await Promise.all([new FakeUpstream().start(), new FakeUpstream().start()]);
    gw = await startGateway({ providers: { openai: { baseUrl: `${a.url}/v1` }, groq: { baseUrl: `${b.url}/v1` } } });
  });
  afterAll(async () => {
    await gw?.close();
    await Promise.all([a?.stop(), b?.stop()]);
  });
  beforeEach(() => {
    a.requests.length = 0;
    b.requests.length = 0;
  });

  it('for three tries over two targets is what the README says, and the request line agrees', async () => {
    const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8').replace(/\s+/g, ' ');
    const stated = /`(\d+)` for three tries over two targets/.exec(readme);
    expect(stated, 'the README defines the count for three tries over two targets').not.toBeNull();

    a.on(UPSTREAM_CHAT, upstreamError(503));
    b.on(UPSTREAM_CHAT, answers('from B'));
    const config = {
      strategy: { mode: 'fallback' },
      targets: [
        { provider: 'openai', retry: { attempts: 1 } },
        { provider: 'groq', api_key: GROQ_KEY },
      ],
    };
    const res = await post(gw.url, CHAT, chatBody(), { 'x-gateway-config': JSON.stringify(config), 'x-gateway-provider': 'openai', 'x-gateway-api-key': KEY });
    expect(res.status).toBe(200);
    expect([a.received(UPSTREAM_CHAT).length, b.received(UPSTREAM_CHAT).length]).toEqual([2, 1]);
    expect(res.headers['x-gateway-retry-count']).toBe(stated![1]);

    const id = res.headers['x-gateway-request-id'];
    await waitFor(() => records(gw).some((r) => r.msg === 'request' && r.requestId === id));
    const line = records(gw).find((r) => r.msg === 'request' && r.requestId === id);
    expect(String(line.retries)).toBe(stated![1]);
    expect(line.attempts).toHaveLength(3);
    expect(records(gw).filter((r) => r.msg === 'upstream attempt failed' && r.requestId === id)).toHaveLength(2);
  });
});
