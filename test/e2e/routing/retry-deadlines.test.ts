import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeUpstream, sleep } from '../../helpers/fake-upstream.js';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';
import { answers, answerText, CHAT, chatBody, hangAndWatch, post, UPSTREAM_CHAT, upstreamError, waitFor } from '../../helpers/routing-harness.js';

const KEY = 'sk-caller-key-1234567890';

describe('retries, deadlines and callers who leave', () => {
  let a: FakeUpstream;
  let b: FakeUpstream;
  let gw: TestGateway;
  const calls = (f: FakeUpstream) => f.received(UPSTREAM_CHAT).length;
  const header = (config: unknown) => ({ 'x-gateway-config': JSON.stringify(config), 'x-gateway-api-key': KEY });
  // groq brings its own key in the caller's config (the configured one serves only gateway-credentialed requests).
  const both = (extra: Record<string, unknown> = {}) => ({
    strategy: { mode: 'fallback' },
    targets: [{ provider: 'openai' }, { provider: 'groq', api_key: 'gsk-groq-caller-key-01' }],
    ...extra,
  });

  beforeAll(async () => {
    [a, b] = await Promise.all([new FakeUpstream().start(), new FakeUpstream().start()]);
    gw = await startGateway({ providers: { openai: { baseUrl: `${a.url}/v1` }, groq: { baseUrl: `${b.url}/v1`, apiKey: 'gsk-groq-configured-key-01' } } });
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

  it('retries listed statuses and says how often', async () => {
    a.on(UPSTREAM_CHAT, upstreamError(500), upstreamError(503), answers('third time'));
    const res = await post(gw.url, CHAT, chatBody(), header({ provider: 'openai', retry: { attempts: 3 } }));
    expect(res.status).toBe(200);
    expect(answerText(res)).toBe('third time');
    expect(res.headers['x-gateway-retry-count']).toBe('2');
    expect(calls(a)).toBe(3);
  });

  it('stops after `attempts` extra tries and answers the last failure, every try in error.debug', async () => {
    a.on(UPSTREAM_CHAT, upstreamError(502, 'bad gateway upstream'));
    const res = await post(gw.url, CHAT, chatBody(), { ...header({ provider: 'openai', retry: { attempts: 2 } }), 'x-gateway-debug': 'true' });
    expect(res.status).toBe(502);
    expect(res.headers['x-gateway-retry-count']).toBe('2');
    expect(res.json.error.debug.attempts.map((x: any) => [x.targetIndex, x.status])).toEqual([
      ['0', 502],
      ['0', 502],
      ['0', 502],
    ]);
    expect(calls(a)).toBe(3);
  });

  it('does not retry statuses outside on_status_codes, nor other 4xx', async () => {
    a.on(UPSTREAM_CHAT, upstreamError(500));
    const res = await post(gw.url, CHAT, chatBody(), header({ provider: 'openai', retry: { attempts: 3, on_status_codes: [503] } }));
    expect(res.status).toBe(502);
    expect(res.headers['x-gateway-retry-count']).toBe('0');
    expect(calls(a)).toBe(1);
    a.on(UPSTREAM_CHAT, upstreamError(422, 'no'));
    const four = await post(gw.url, CHAT, chatBody(), header({ provider: 'openai', retry: { attempts: 3 } }));
    expect(four.status).toBe(422);
    expect(calls(a)).toBe(2);
  });

  it('retries network errors (a reset connection)', async () => {
    a.on(UPSTREAM_CHAT, { fault: 'reset' }, answers('after reset'));
    const res = await post(gw.url, CHAT, chatBody(), header({ provider: 'openai', retry: { attempts: 1 } }));
    expect(res.status).toBe(200);
    expect(answerText(res)).toBe('after reset');
    expect(calls(a)).toBe(2);
  });

  it('waits as long as Retry-After asks when use_retry_after_header is set', async () => {
    const arrivals: number[] = [];
    a.on(
      UPSTREAM_CHAT,
      (_req, res) => {
        arrivals.push(performance.now());
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' });
        res.end(JSON.stringify({ error: { message: 'wait' } }));
      },
      (req, res) => {
        arrivals.push(performance.now());
        (answers('waited') as any)(req, res);
      },
    );
    const res = await post(gw.url, CHAT, chatBody(), header({ provider: 'openai', retry: { attempts: 1, use_retry_after_header: true } }));
    expect(res.status).toBe(200);
    expect(answerText(res)).toBe('waited');
    expect(arrivals).toHaveLength(2);
    // The second try did not come before the upstream's Retry-After (1 s) had passed.
    expect(arrivals[1]! - arrivals[0]!).toBeGreaterThanOrEqual(950);
  });

  it('does not start a wait that would end past the deadline: the 429 is answered at once', async () => {
    a.on(UPSTREAM_CHAT, upstreamError(429, 'much later', { 'retry-after': '30' }));
    const res = await post(gw.url, CHAT, chatBody(), header({ provider: 'openai', request_timeout: 2000, retry: { attempts: 3, use_retry_after_header: true } }));
    expect(res.status).toBe(429);
    expect(res.headers['retry-after']).toBe('30');
    expect(res.headers['x-gateway-retry-count']).toBe('0');
    expect(calls(a)).toBe(1);
  });

  it('counts retries across fallback targets: three tries over two targets are two upstream attempts after the first', async () => {
    a.on(UPSTREAM_CHAT, upstreamError(500));
    const res = await post(gw.url, CHAT, chatBody(), header(both({ retry: { attempts: 1 } })));
    expect(res.status).toBe(200);
    expect(answerText(res)).toBe('from B');
    expect(res.headers['x-gateway-retry-count']).toBe('2');
    expect([calls(a), calls(b)]).toEqual([2, 1]);
  });

  it('request_timeout bounds the whole request: a hanging upstream gets one try and the caller a 504', async () => {
    a.on(UPSTREAM_CHAT, { fault: 'hang' });
    const res = await post(gw.url, CHAT, chatBody(), header({ provider: 'openai', request_timeout: 400, retry: { attempts: 5 } }));
    expect(res.status).toBe(504);
    expect(res.json).toMatchObject({ status: 'failure', error: { type: 'timeout_error', code: 'request_timeout', provider: 'openai' } });
    expect(calls(a)).toBe(1);
  });

  it('request_timeout covers fallbacks too: no target starts after it passed', async () => {
    a.on(UPSTREAM_CHAT, { fault: 'hang' });
    b.on(UPSTREAM_CHAT, { fault: 'hang' });
    const res = await post(gw.url, CHAT, chatBody(), header(both({ request_timeout: 600, first_byte_timeout: 300 })));
    expect(res.status).toBe(504);
    expect(res.json.error.code).toBe('request_timeout');
    expect([calls(a), calls(b)]).toEqual([1, 1]);
    await sleep(300);
    expect([calls(a), calls(b)]).toEqual([1, 1]);
  });

  it('first_byte_timeout failures are retried like other timeouts', async () => {
    a.on(UPSTREAM_CHAT, { fault: 'hang' }, answers('second try'));
    const res = await post(gw.url, CHAT, chatBody(), header({ provider: 'openai', first_byte_timeout: 250, retry: { attempts: 1 } }));
    expect(res.status).toBe(200);
    expect(answerText(res)).toBe('second try');
    expect(calls(a)).toBe(2);
  });

  it('a caller who disconnects aborts the upstream request at once, and no other attempt starts', async () => {
    let aborted = false;
    a.on(
      UPSTREAM_CHAT,
      hangAndWatch(() => (aborted = true)),
    );
    const controller = new AbortController();
    const pending = post(gw.url, CHAT, chatBody(), header(both({ retry: { attempts: 3 } })), controller.signal).catch((e) => e);
    await waitFor(() => calls(a) === 1);
    controller.abort();
    await pending;
    await waitFor(() => aborted);
    await sleep(400);
    expect([calls(a), calls(b)]).toEqual([1, 0]);
    await waitFor(() => gw.logs.records().some((r) => r.msg === 'request' && r.clientGone === true));
  });

  it('a caller who disconnects during a backoff wait ends it: no further try', async () => {
    a.on(UPSTREAM_CHAT, upstreamError(429, 'wait', { 'retry-after': '2' }));
    const controller = new AbortController();
    const pending = post(gw.url, CHAT, chatBody(), header(both({ retry: { attempts: 3, use_retry_after_header: true } })), controller.signal).catch((e) => e);
    await waitFor(() => calls(a) === 1);
    await sleep(150);
    controller.abort();
    await pending;
    await sleep(2500);
    expect([calls(a), calls(b)]).toEqual([1, 0]);
  });
});
