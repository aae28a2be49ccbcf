import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeUpstream, sleep } from '../../helpers/fake-upstream.js';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';
import { answers, answerText, CHAT, chatBody, post, streamChunks, UPSTREAM_CHAT, upstreamError } from '../../helpers/routing-harness.js';

const KEY = 'sk-caller-key-1234567890';

describe('fallback across targets, under faults', () => {
  let a: FakeUpstream;
  let b: FakeUpstream;
  let c: FakeUpstream;
  let gw: TestGateway;

  const calls = (f: FakeUpstream) => f.received(UPSTREAM_CHAT).length;
  const fallback = (extra: Record<string, unknown> = {}, targets?: unknown[]) => ({
    'x-gateway-config': JSON.stringify({
      strategy: { mode: 'fallback' },
      targets: targets ?? [{ provider: 'openai' }, { provider: 'groq', api_key: 'gsk-target-b-key-123456' }],
      ...extra,
    }),
    'x-gateway-api-key': KEY,
  });

  beforeAll(async () => {
    [a, b, c] = await Promise.all([new FakeUpstream().start(), new FakeUpstream().start(), new FakeUpstream().start()]);
    gw = await startGateway({
      providers: { openai: { baseUrl: `${a.url}/v1` }, groq: { baseUrl: `${b.url}/v1` } },
      routing: { allowCustomHost: true },
    });
  });
  afterAll(async () => {
    await gw?.close();
    await Promise.all([a?.stop(), b?.stop(), c?.stop()]);
  });
  beforeEach(() => {
    for (const f of [a, b, c]) {
      f.requests.length = 0;
      f.on(UPSTREAM_CHAT, answers(`from ${f === a ? 'A' : f === b ? 'B' : 'C'}`));
    }
  });

  it.each([500, 502, 503, 504])('moves on when the first target answers %i', async (status) => {
    a.on(UPSTREAM_CHAT, upstreamError(status));
    const res = await post(gw.url, CHAT, chatBody(), fallback());
    expect(res.status).toBe(200);
    expect(answerText(res)).toBe('from B');
    expect(res.headers['x-gateway-provider']).toBe('groq');
    expect(res.headers['x-gateway-target-index']).toBe('1');
    // A fallback is an upstream attempt after the first.
    expect(res.headers['x-gateway-retry-count']).toBe('1');
    expect(calls(a)).toBe(1);
    expect(calls(b)).toBe(1);
    // Each target got its own key: the caller's for A, the target's for B.
    expect(a.received(UPSTREAM_CHAT)[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(b.received(UPSTREAM_CHAT)[0]!.headers.authorization).toBe('Bearer gsk-target-b-key-123456');
  });

  it('moves on after a 429 with Retry-After', async () => {
    a.on(UPSTREAM_CHAT, upstreamError(429, 'slow down', { 'retry-after': '7' }));
    const res = await post(gw.url, CHAT, chatBody(), fallback());
    expect(res.status).toBe(200);
    expect(answerText(res)).toBe('from B');
    expect([calls(a), calls(b)]).toEqual([1, 1]);
  });

  it('returns another 4xx to the caller at once, without trying the next target', async () => {
    a.on(UPSTREAM_CHAT, upstreamError(400, 'bad parameter'));
    const res = await post(gw.url, CHAT, chatBody(), fallback());
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ status: 'failure', error: { type: 'invalid_request_error', message: 'bad parameter', provider: 'openai' } });
    expect(res.headers['x-gateway-provider']).toBe('openai');
    expect(res.headers['x-gateway-target-index']).toBe('0');
    expect([calls(a), calls(b)]).toEqual([1, 0]);
  });

  it('honours on_status_codes: a status not listed is answered, not fallen back from', async () => {
    a.on(UPSTREAM_CHAT, upstreamError(500));
    const res = await post(gw.url, CHAT, chatBody(), fallback({ strategy: { mode: 'fallback', on_status_codes: [503] } }));
    expect(res.status).toBe(502);
    expect(res.json.error).toMatchObject({ type: 'provider_error', code: 'provider_error', provider: 'openai' });
    expect([calls(a), calls(b)]).toEqual([1, 0]);

    a.on(UPSTREAM_CHAT, upstreamError(503));
    const next = await post(gw.url, CHAT, chatBody(), fallback({ strategy: { mode: 'fallback', on_status_codes: [503] } }));
    expect(next.status).toBe(200);
    expect([calls(a), calls(b)]).toEqual([2, 1]);
  });

  it('moves on when a target never sends headers (first_byte_timeout)', async () => {
    a.on(UPSTREAM_CHAT, { fault: 'hang' });
    const res = await post(gw.url, CHAT, chatBody(), fallback({ first_byte_timeout: 300 }));
    expect(res.status).toBe(200);
    expect(answerText(res)).toBe('from B');
    expect([calls(a), calls(b)]).toEqual([1, 1]);
  });

  it('moves on when a stream sends headers but no first byte in time', async () => {
    a.on(UPSTREAM_CHAT, (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.flushHeaders();
      setTimeout(() => {
        if (!res.destroyed) for (const chunk of streamChunks(['late'])) res.write(chunk);
        res.end();
      }, 1500);
    });
    const res = await post(gw.url, CHAT, chatBody({ stream: true }), fallback({ first_byte_timeout: 300 }));
    expect(res.status).toBe(200);
    expect(res.done).toBe(true);
    expect(answerText(res)).toBe('from B');
    expect(res.headers['x-gateway-target-index']).toBe('1');
    expect([calls(a), calls(b)]).toEqual([1, 1]);
  });

  it('moves on when the connection is reset', async () => {
    a.on(UPSTREAM_CHAT, { fault: 'reset' });
    const res = await post(gw.url, CHAT, chatBody(), fallback());
    expect(res.status).toBe(200);
    expect(answerText(res)).toBe('from B');
    expect([calls(a), calls(b)]).toEqual([1, 1]);
  });

  it('falls back for a stream that fails before its first byte', async () => {
    a.on(UPSTREAM_CHAT, upstreamError(503));
    const res = await post(gw.url, CHAT, chatBody({ stream: true }), fallback());
    expect(res.status).toBe(200);
    expect(res.done).toBe(true);
    expect(answerText(res)).toBe('from B');
    expect([calls(a), calls(b)]).toEqual([1, 1]);
  });

  it('never falls back after a stream reached the caller: a cut stream ends with one error event and no [DONE]', async () => {
    a.on(UPSTREAM_CHAT, async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const chunk of streamChunks(['Hel', 'lo'], { done: false })) res.write(chunk);
      await sleep(100);
      res.socket?.destroy();
    });
    const res = await post(gw.url, CHAT, chatBody({ stream: true }), fallback());
    expect(res.status).toBe(200);
    expect(res.done).toBe(false);
    expect(res.events.slice(0, -1).map((e) => e.choices[0].delta.content)).toEqual(['', 'Hel', 'lo']);
    expect(res.events.at(-1)).toMatchObject({ status: 'failure', error: { type: 'provider_error', code: 'provider_error', provider: 'openai' } });
    expect(res.text.match(/"status":"failure"/g)).toHaveLength(1);
    expect([calls(a), calls(b)]).toEqual([1, 0]);
  });

  it('ends a stream that goes silent (idle_timeout) with a timeout error event, without trying the next target', async () => {
    a.on(UPSTREAM_CHAT, { chunks: streamChunks(['Hel'], { done: false }), end: 'hang' });
    const res = await post(gw.url, CHAT, chatBody({ stream: true }), fallback({ idle_timeout: 300 }));
    expect(res.status).toBe(200);
    expect(res.done).toBe(false);
    expect(res.events.at(-1)).toMatchObject({ status: 'failure', error: { type: 'timeout_error', code: 'request_timeout' } });
    expect([calls(a), calls(b)]).toEqual([1, 0]);
  });

  it("times idle_timeout between chunks only: a slower first chunk is first_byte_timeout's, steady chunks pass", async () => {
    a.on(UPSTREAM_CHAT, async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.flushHeaders();
      await sleep(450);
      for (const chunk of streamChunks(['one ', 'two ', 'three'])) {
        if (res.destroyed) return;
        res.write(chunk);
        await sleep(100);
      }
      res.end();
    });
    const res = await post(gw.url, CHAT, chatBody({ stream: true }), fallback({ first_byte_timeout: 2000, idle_timeout: 300 }));
    expect(res.done).toBe(true);
    expect(answerText(res)).toBe('one two three');
    expect([calls(a), calls(b)]).toEqual([1, 0]);
  });

  it('answers the last failure when every target fails, listing each attempt under error.debug', async () => {
    a.on(UPSTREAM_CHAT, upstreamError(500, 'A broke'));
    b.on(UPSTREAM_CHAT, upstreamError(429, 'B is busy', { 'retry-after': '3' }));
    const res = await post(gw.url, CHAT, chatBody(), { ...fallback(), 'x-gateway-debug': 'true' });
    expect(res.status).toBe(429);
    expect(res.headers['retry-after']).toBe('3');
    expect(res.headers['x-gateway-provider']).toBe('groq');
    expect(res.headers['x-gateway-target-index']).toBe('1');
    expect(res.json.error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limit_exceeded', message: 'B is busy', provider: 'groq' });
    const attempts = res.json.error.debug.attempts;
    expect(attempts.map((x: any) => [x.provider, x.targetIndex, x.status, x.code, x.message])).toEqual([
      ['openai', '0', 500, 'provider_error', 'A broke'],
      ['groq', '1', 429, 'rate_limit_exceeded', 'B is busy'],
    ]);
    for (const x of attempts) expect(typeof x.durationMs).toBe('number');
    expect(res.text).not.toContain(KEY);
    expect(res.text).not.toContain('gsk-target-b-key-123456');
    expect([calls(a), calls(b)]).toEqual([1, 1]);
  });

  it('does not show error.debug without x-gateway-debug', async () => {
    a.on(UPSTREAM_CHAT, upstreamError(500));
    b.on(UPSTREAM_CHAT, upstreamError(500));
    const res = await post(gw.url, CHAT, chatBody(), fallback());
    expect(res.status).toBe(502);
    expect(res.json.error.debug).toBeUndefined();
  });

  it('walks nested groups and reports the index path of the target that answered', async () => {
    a.on(UPSTREAM_CHAT, upstreamError(500));
    c.on(UPSTREAM_CHAT, upstreamError(503));
    const res = await post(
      gw.url,
      CHAT,
      chatBody(),
      fallback({}, [
        { provider: 'openai' },
        { strategy: { mode: 'fallback' }, provider: 'openai', targets: [{ custom_host: `${c.url}/v1` }, { provider: 'groq', api_key: 'gsk-target-b-key-123456' }] },
      ]),
    );
    expect(res.status).toBe(200);
    expect(answerText(res)).toBe('from B');
    expect(res.headers['x-gateway-target-index']).toBe('1.1');
    expect(res.headers['x-gateway-provider']).toBe('groq');
    expect([calls(a), calls(c), calls(b)]).toEqual([1, 1, 1]);
  });

  it('sends each target its override_params and forward_headers', async () => {
    a.on(UPSTREAM_CHAT, upstreamError(500));
    await post(gw.url, CHAT, chatBody(), {
      ...fallback({ override_params: { temperature: 0 }, forward_headers: ['x-trace'] }, [
        { provider: 'openai', override_params: { model: 'gpt-a' } },
        { provider: 'groq', api_key: 'gsk-target-b-key-123456', override_params: { model: 'llama-b' }, forward_headers: [] },
      ]),
      'x-trace': 'trace-1',
    });
    const sentA = a.received(UPSTREAM_CHAT)[0]!;
    const sentB = b.received(UPSTREAM_CHAT)[0]!;
    expect(sentA.json()).toMatchObject({ model: 'gpt-a', temperature: 0 });
    expect(sentA.headers['x-trace']).toBe('trace-1');
    expect(sentB.json()).toMatchObject({ model: 'llama-b', temperature: 0 });
    expect(sentB.headers['x-trace']).toBeUndefined();
  });

  it('keeps slow answers that arrive in time', async () => {
    a.on(UPSTREAM_CHAT, async (req, res) => {
      await sleep(100);
      (answers('slow A') as any)(req, res);
    });
    const res = await post(gw.url, CHAT, chatBody(), fallback({ first_byte_timeout: 2000 }));
    expect(answerText(res)).toBe('slow A');
    expect([calls(a), calls(b)]).toEqual([1, 0]);
  });
});
