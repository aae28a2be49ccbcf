import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeUpstream, sleep } from '../../helpers/fake-upstream.js';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';
import { answers, answerText, CHAT, chatBody, post, UPSTREAM_CHAT, upstreamError } from '../../helpers/routing-harness.js';

describe('circuit breakers (routing.circuitBreaker)', () => {
  let a: FakeUpstream;
  let b: FakeUpstream;
  let gw: TestGateway;
  const calls = (f: FakeUpstream) => f.received(UPSTREAM_CHAT).length;
  const fallback = (keyA: string) => ({
    'x-gateway-config': JSON.stringify({
      strategy: { mode: 'fallback' },
      targets: [
        { provider: 'openai', api_key: keyA },
        { provider: 'groq', api_key: 'gsk-b-key-1234567' },
      ],
    }),
  });
  const single = (key: string) => ({ 'x-gateway-config': JSON.stringify({ provider: 'openai', api_key: key }) });

  beforeAll(async () => {
    [a, b] = await Promise.all([new FakeUpstream().start(), new FakeUpstream().start()]);
    gw = await startGateway({
      providers: { openai: { baseUrl: `${a.url}/v1` }, groq: { baseUrl: `${b.url}/v1` } },
      routing: { circuitBreaker: { failureThreshold: 2, cooldown: '1s' } },
    });
  });
  afterAll(async () => {
    await gw?.close();
    await Promise.all([a?.stop(), b?.stop()]);
  });
  beforeEach(() => {
    a.requests.length = 0;
    b.requests.length = 0;
    a.on(UPSTREAM_CHAT, answers('from A'));
    b.on(UPSTREAM_CHAT, answers('from B'));
  });

  it('opens after consecutive failures: the target is skipped, then tried again once it half-opens', async () => {
    a.on(UPSTREAM_CHAT, upstreamError(503));
    for (let i = 0; i < 2; i++) expect(answerText(await post(gw.url, CHAT, chatBody(), fallback('sk-a-key-one-12345')))).toBe('from B');
    expect([calls(a), calls(b)]).toEqual([2, 2]);

    // Open: A is not called at all.
    const skipped = await post(gw.url, CHAT, chatBody(), fallback('sk-a-key-one-12345'));
    expect(answerText(skipped)).toBe('from B');
    expect(skipped.headers['x-gateway-target-index']).toBe('1');
    expect([calls(a), calls(b)]).toEqual([2, 3]);

    // Every target of this config is open: 503 service_unavailable, nothing sent.
    const none = await post(gw.url, CHAT, chatBody(), single('sk-a-key-one-12345'));
    expect(none.status).toBe(503);
    expect(none.json).toMatchObject({ status: 'failure', error: { type: 'service_unavailable', code: 'service_unavailable' } });
    expect(Number(none.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(calls(a)).toBe(2);

    // After the cooldown the circuit half-opens; a good trial closes it.
    await sleep(1200);
    a.on(UPSTREAM_CHAT, answers('A is back'));
    expect(answerText(await post(gw.url, CHAT, chatBody(), fallback('sk-a-key-one-12345')))).toBe('A is back');
    expect(answerText(await post(gw.url, CHAT, chatBody(), fallback('sk-a-key-one-12345')))).toBe('A is back');
    expect(calls(a)).toBe(4);
  });

  it('keeps one circuit per target: another key on the same provider is not affected', async () => {
    a.on(UPSTREAM_CHAT, upstreamError(500));
    await post(gw.url, CHAT, chatBody(), single('sk-a-key-two-12345'));
    await post(gw.url, CHAT, chatBody(), single('sk-a-key-two-12345'));
    expect((await post(gw.url, CHAT, chatBody(), single('sk-a-key-two-12345'))).status).toBe(503);
    a.on(UPSTREAM_CHAT, answers('other key'));
    const other = await post(gw.url, CHAT, chatBody(), single('sk-a-key-three-12345'));
    expect(answerText(other)).toBe('other key');
    expect(calls(a)).toBe(3);
  });

  it('does not count 4xx answers', async () => {
    a.on(UPSTREAM_CHAT, upstreamError(400, 'bad request'));
    for (let i = 0; i < 4; i++) expect((await post(gw.url, CHAT, chatBody(), single('sk-a-key-four-12345'))).status).toBe(400);
    expect(calls(a)).toBe(4);
  });

  it('covers requests without a routing config too', async () => {
    a.on(UPSTREAM_CHAT, { fault: 'reset' });
    const headers = { 'x-gateway-provider': 'openai', 'x-gateway-api-key': 'sk-a-key-five-12345' };
    expect((await post(gw.url, CHAT, chatBody(), headers)).status).toBe(502);
    expect((await post(gw.url, CHAT, chatBody(), headers)).status).toBe(502);
    const open = await post(gw.url, CHAT, chatBody(), headers);
    expect(open.status).toBe(503);
    expect(open.json.error.code).toBe('service_unavailable');
    expect(calls(a)).toBe(2);
  });
});
