import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeUpstream } from '../../helpers/fake-upstream.js';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';
import { answers, CHAT, chatBody, post, streamChunks, UPSTREAM_CHAT } from '../../helpers/routing-harness.js';
import { upstreamDeadlines } from '../../../src/features/models/routing/deadline-defaults.js';
import { buildConfig } from '../../../src/kernel/config/load-config.js';

const KEY = 'sk-deadlines-key-0001';
const headers = { 'x-gateway-provider': 'openai', authorization: `Bearer ${KEY}` };

describe('deadlines that apply when no routing config sets any', () => {
  it('are 120 s for the first byte and 60 s between chunks, changeable under routing.defaults', () => {
    expect(upstreamDeadlines(buildConfig({}, 't', { env: {} }))).toEqual({ headersTimeout: 120_000, bodyTimeout: 60_000 });
    expect(upstreamDeadlines(buildConfig({ routing: { defaults: { first_byte_timeout: '2m', idle_timeout: 1500 } } }, 't', { env: {} }))).toEqual({
      headersTimeout: 120_000 * 1,
      bodyTimeout: 1500,
    });
    expect(() => buildConfig({ routing: { defaults: { idle_timeout: 'soon' } } }, 't', { env: {} })).toThrow(/routing\.defaults\.idle_timeout/);
  });
});

/**
 * With small routing.defaults (no routing config on the requests), an upstream that stalls
 * never holds a request: a stream ends with the contract's error event (no [DONE]), a request
 * waiting for headers or body gets 504 timeout_error.
 */
describe('an upstream that stalls', () => {
  let upstream: FakeUpstream;
  let gw: TestGateway;

  beforeAll(async () => {
    upstream = await new FakeUpstream().start();
    gw = await startGateway({
      logging: { level: 'warn' },
      providers: { openai: { baseUrl: `${upstream.url}/v1` } },
      routing: { defaults: { first_byte_timeout: 400, idle_timeout: 400 } },
    });
  });
  afterAll(async () => {
    await gw?.close();
    await upstream?.stop();
  });
  beforeEach(() => {
    upstream.requests.length = 0;
  });

  it('mid-stream: the stream ends with one error event carrying the whole error body, and no [DONE]', async () => {
    upstream.on(UPSTREAM_CHAT, { chunks: streamChunks(['Hello', ' wor'], { done: false }), end: 'hang' });
    const res = await post(gw.url, CHAT, chatBody({ stream: true }), headers);
    expect(res.status).toBe(200);
    expect(res.done).toBe(false);
    const last = res.events.at(-1);
    expect(last).toMatchObject({ status: 'failure', error: { type: 'timeout_error', code: 'request_timeout', provider: 'openai' } });
    expect(
      res.events
        .slice(0, -1)
        .map((e) => e.choices[0].delta.content ?? '')
        .join(''),
    ).toBe('Hello wor');
  });

  it('before the first byte: 504 timeout_error', async () => {
    upstream.on(UPSTREAM_CHAT, { fault: 'hang' });
    const res = await post(gw.url, CHAT, chatBody(), headers);
    expect(res.status).toBe(504);
    expect(res.json).toMatchObject({ status: 'failure', error: { type: 'timeout_error', code: 'request_timeout', provider: 'openai' } });
  });

  it('in the middle of a JSON body: 504 timeout_error', async () => {
    upstream.on(UPSTREAM_CHAT, (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"id":"chatcmpl-1","choices":[');
    });
    const res = await post(gw.url, CHAT, chatBody(), headers);
    expect(res.status).toBe(504);
    expect(res.json.error).toMatchObject({ type: 'timeout_error', code: 'request_timeout' });
  });

  it('a stalled stream before its first event falls back like any failure', async () => {
    const other = await new FakeUpstream().start();
    const gw2 = await startGateway({
      logging: { level: 'warn' },
      providers: { openai: { baseUrl: `${upstream.url}/v1` }, groq: { baseUrl: `${other.url}/v1` } },
      routing: { defaults: { first_byte_timeout: 400, idle_timeout: 400 } },
    });
    try {
      upstream.on(UPSTREAM_CHAT, { fault: 'hang' });
      other.on(UPSTREAM_CHAT, answers('from the fallback'));
      const res = await post(gw2.url, CHAT, chatBody({ stream: true }), {
        ...headers,
        'x-gateway-config': JSON.stringify({ targets: [{ provider: 'openai' }, { provider: 'groq', api_key: 'gsk-fallback-0001' }] }),
      });
      expect(res.status).toBe(200);
      expect(res.done).toBe(true);
      expect(res.headers['x-gateway-provider']).toBe('groq');
    } finally {
      await gw2.close();
      await other.stop();
    }
  });
});
