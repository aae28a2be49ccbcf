import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeUpstream, sleep } from '../../helpers/fake-upstream.js';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';
import { answers, CHAT, chatBody, post, UPSTREAM_CHAT } from '../../helpers/routing-harness.js';

const HOUR = 3_600_000;
/** Waits out the last seconds of a clock-aligned window, so a test's requests share one window. */
async function awayFromWindowEdge(windowMs = HOUR): Promise<void> {
  const left = windowMs - (Date.now() % windowMs);
  if (left < 10_000) await sleep(left + 50);
}
const withKey = (key: string, extra: Record<string, string> = {}) => ({ 'x-gateway-provider': 'openai', 'x-gateway-api-key': key, ...extra });

describe('gateway rate limits (memory counters)', () => {
  let a: FakeUpstream;
  let gw: TestGateway;

  beforeAll(async () => {
    a = await new FakeUpstream()
      .on(UPSTREAM_CHAT, answers('ok'))
      .on('POST /v1/embeddings', { json: { object: 'list', data: [], model: 'e', usage: { prompt_tokens: 1, total_tokens: 1 } } })
      .start();
    gw = await startGateway({
      providers: { openai: { baseUrl: `${a.url}/v1` } },
      rateLimits: [
        { per: 'key', limit: 3, window: '1h', routes: ['/v1/chat/completions'] },
        { per: 'key', limit: 1000, window: '1h', tokens: 20, routes: ['/v1/completions'] },
        { per: 'ip', limit: 2, window: '1h', routes: ['/v1/embeddings'] },
        { per: 'user', limit: 1, window: '1h', routes: ['/v1/images/*'] },
        { per: 'key', limit: 50, window: '1h', routes: ['/v1/images/*'] },
      ],
    });
  });
  afterAll(async () => {
    await gw?.close();
    await a?.stop();
  });

  it('counts requests per provider key and refuses past the limit with 429 and Retry-After', async () => {
    await awayFromWindowEdge();
    const key = `sk-${randomUUID()}`;
    const now = Math.floor(Date.now() / 1000);
    const remaining: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await post(gw.url, CHAT, chatBody(), withKey(key));
      expect(res.status).toBe(200);
      expect(res.headers['x-ratelimit-limit']).toBe('3');
      remaining.push(String(res.headers['x-ratelimit-remaining']));
      const reset = Number(res.headers['x-ratelimit-reset']);
      expect(reset).toBeGreaterThan(now);
      expect(reset).toBeLessThanOrEqual(now + 3600 + 1);
      expect(reset % 3600).toBe(0);
    }
    expect(remaining).toEqual(['2', '1', '0']);
    const refused = await post(gw.url, CHAT, chatBody(), withKey(key));
    expect(refused.status).toBe(429);
    expect(refused.json).toMatchObject({ status: 'failure', error: { type: 'rate_limit_error', code: 'rate_limit_exceeded' } });
    expect(refused.json.error.message).toMatch(/^Rate limit exceeded: 3 requests per 1h per key\./);
    expect(refused.headers['x-ratelimit-remaining']).toBe('0');
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect(refused.text).not.toContain(key);
    // Another key has its own counter.
    expect((await post(gw.url, CHAT, chatBody(), withKey(`sk-${randomUUID()}`))).headers['x-ratelimit-remaining']).toBe('2');
  });

  it('puts the headers on error answers too (limits are checked before validation)', async () => {
    await awayFromWindowEdge();
    const res = await post(gw.url, CHAT, chatBody({ temperature: 9 }), withKey(`sk-${randomUUID()}`));
    expect(res.status).toBe(400);
    expect(res.headers['x-ratelimit-limit']).toBe('3');
    expect(res.headers['x-ratelimit-remaining']).toBe('2');
  });

  it('counts per client address', async () => {
    await awayFromWindowEdge();
    const body = { model: 'text-embedding-3-small', input: 'x' };
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await post(gw.url, '/v1/embeddings', body, withKey(`sk-${randomUUID()}`))).status);
    expect(statuses).toEqual([200, 200, 429]);
  });

  it('does not count requests without the subject a rule names (no gateway identity for per: user)', async () => {
    await awayFromWindowEdge();
    const key = `sk-${randomUUID()}`;
    for (let i = 0; i < 3; i++) {
      const res = await post(gw.url, '/v1/images/generations', { prompt: 'a cat', model: 'dall-e-2' }, withKey(key));
      expect(res.status).not.toBe(429);
      // Only the per-key rule (limit 50) counted this request.
      expect(res.headers['x-ratelimit-limit']).toBe('50');
      expect(res.headers['x-ratelimit-remaining']).toBe(String(49 - i));
    }
  });

  it('charges token budgets from the answers usage and refuses once a budget is spent', async () => {
    await awayFromWindowEdge();
    a.on('POST /v1/completions', {
      json: {
        id: 'c',
        object: 'text_completion',
        created: 1,
        model: 'm',
        choices: [{ index: 0, text: 'x', finish_reason: 'stop', logprobs: null }],
        usage: { prompt_tokens: 4, completion_tokens: 8, total_tokens: 12 },
      },
    });
    const key = `sk-${randomUUID()}`;
    const body = { model: 'gpt-3.5-turbo-instruct', prompt: 'hi' };
    const first = await post(gw.url, '/v1/completions', body, withKey(key));
    expect(first.status).toBe(200);
    expect(first.headers['x-ratelimit-limit-tokens']).toBe('20');
    expect(first.headers['x-ratelimit-remaining-tokens']).toBe('20');
    const second = await post(gw.url, '/v1/completions', body, withKey(key));
    expect(second.status).toBe(200);
    expect(second.headers['x-ratelimit-remaining-tokens']).toBe('8');
    const third = await post(gw.url, '/v1/completions', body, withKey(key));
    expect(third.status).toBe(429);
    expect(third.json.error.message).toMatch(/^Rate limit exceeded: 20 tokens per 1h per key\./);
    expect(a.received('POST /v1/completions')).toHaveLength(2);
  });

  it('charges streamed answers from their usage part', async () => {
    await awayFromWindowEdge();
    a.on('POST /v1/completions', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(
        `data: ${JSON.stringify({ id: 'c', object: 'text_completion', created: 1, model: 'm', choices: [{ index: 0, text: 'x', finish_reason: 'stop', logprobs: null }] })}\n\n`,
      );
      res.write(
        `data: ${JSON.stringify({ id: 'c', object: 'text_completion', created: 1, model: 'm', choices: [], usage: { prompt_tokens: 5, completion_tokens: 10, total_tokens: 15 } })}\n\n`,
      );
      res.end('data: [DONE]\n\n');
    });
    const key = `sk-${randomUUID()}`;
    const body = { model: 'gpt-3.5-turbo-instruct', prompt: 'hi', stream: true, stream_options: { include_usage: true } };
    expect((await post(gw.url, '/v1/completions', body, withKey(key))).status).toBe(200);
    const second = await post(gw.url, '/v1/completions', body, withKey(key));
    expect(second.headers['x-ratelimit-remaining-tokens']).toBe('5');
  });
});

describe('gateway rate limits shared by two instances through Redis', () => {
  const prefix = `gw-test-${randomUUID()}:`;
  let a: FakeUpstream;
  let one: TestGateway;
  let two: TestGateway;
  let redis: Redis;

  beforeAll(async () => {
    a = await new FakeUpstream().on(UPSTREAM_CHAT, answers('ok')).start();
    const config = {
      providers: { openai: { baseUrl: `${a.url}/v1` } },
      rateLimits: [{ per: 'key', limit: 4, window: '1h' }],
      redis: { url: 'redis://127.0.0.1:6379', keyPrefix: prefix },
    };
    [one, two] = await Promise.all([startGateway(config), startGateway(config)]);
    redis = new Redis('redis://127.0.0.1:6379');
  });
  afterAll(async () => {
    await Promise.all([one?.close(), two?.close()]);
    await a?.stop();
    if (redis) {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length) await redis.del(...keys);
      await redis.quit();
    }
  });

  it('enforces one limit across both instances', async () => {
    await awayFromWindowEdge();
    const key = `sk-${randomUUID()}`;
    const seen: Array<[number, string]> = [];
    for (let i = 0; i < 6; i++) {
      const res = await post((i % 2 ? two : one).url, CHAT, chatBody(), withKey(key));
      seen.push([res.status, String(res.headers['x-ratelimit-remaining'])]);
    }
    expect(seen).toEqual([
      [200, '3'],
      [200, '2'],
      [200, '1'],
      [200, '0'],
      [429, '0'],
      [429, '0'],
    ]);
    expect(a.received(UPSTREAM_CHAT)).toHaveLength(4);
    const keys = await redis.keys(`${prefix}rl:*`);
    expect(keys.length).toBeGreaterThan(0);
    for (const k of keys) expect(k).not.toContain(key);
    const ttl = await redis.pttl(keys.find((k) => !k.endsWith(':t'))!);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(HOUR);
  });

  it('concurrent requests on both instances never overshoot the limit', async () => {
    await awayFromWindowEdge();
    const key = `sk-${randomUUID()}`;
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => post((i % 2 ? two : one).url, CHAT, chatBody(), withKey(key))));
    expect(results.filter((r) => r.status === 200)).toHaveLength(4);
    expect(results.filter((r) => r.status === 429)).toHaveLength(8);
  });
});
