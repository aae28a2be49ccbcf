import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeUpstream, sleep } from '../../helpers/fake-upstream.js';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';
import { answers, answerText, CHAT, chatBody, post, streamChunks, UPSTREAM_CHAT, upstreamError } from '../../helpers/routing-harness.js';

const KEY = 'sk-caller-key-1234567890';
const cached = (extra: Record<string, unknown> = {}) => ({
  'x-gateway-config': JSON.stringify({ provider: 'openai', cache: { mode: 'simple', max_age: 60 }, ...extra }),
  'x-gateway-api-key': KEY,
});

describe('answer cache (memory)', () => {
  let a: FakeUpstream;
  let gw: TestGateway;
  let n = 0;
  const calls = () => a.received(UPSTREAM_CHAT).length;
  /** A body no other test uses, so entries never collide between tests. */
  const unique = (extra: Record<string, unknown> = {}) => chatBody({ messages: [{ role: 'user', content: `question ${++n}` }], ...extra });

  beforeAll(async () => {
    a = await new FakeUpstream().start();
    gw = await startGateway({ providers: { openai: { baseUrl: `${a.url}/v1` } } });
  });
  afterAll(async () => {
    await gw?.close();
    await a?.stop();
  });
  beforeEach(() => {
    a.requests.length = 0;
    let count = 0;
    a.on(UPSTREAM_CHAT, (req, res) => (answers(`answer ${++count}`) as any)(req, res));
  });

  it('answers an identical request from the cache', async () => {
    const body = unique();
    const first = await post(gw.url, CHAT, body, cached());
    const second = await post(gw.url, CHAT, body, cached());
    expect(first.headers['x-gateway-cache-status']).toBe('MISS');
    expect(second.headers['x-gateway-cache-status']).toBe('HIT');
    expect(second.status).toBe(200);
    expect(second.json).toEqual(first.json);
    expect(second.headers['x-gateway-provider']).toBe('openai');
    expect(calls()).toBe(1);
  });

  it('keys on the body and keeps provider keys apart', async () => {
    const body = unique();
    await post(gw.url, CHAT, body, cached());
    expect((await post(gw.url, CHAT, { ...body, temperature: 0.5 }, cached())).headers['x-gateway-cache-status']).toBe('MISS');
    const otherTenant = await post(gw.url, CHAT, body, { ...cached(), 'x-gateway-api-key': 'sk-another-tenant-12345' });
    expect(otherTenant.headers['x-gateway-cache-status']).toBe('MISS');
    expect(calls()).toBe(3);
  });

  it('x-gateway-cache-force-refresh skips the lookup and stores the new answer', async () => {
    const body = unique();
    const first = await post(gw.url, CHAT, body, cached());
    const refreshed = await post(gw.url, CHAT, body, { ...cached(), 'x-gateway-cache-force-refresh': 'true' });
    expect(refreshed.headers['x-gateway-cache-status']).toBe('REFRESH');
    expect(answerText(refreshed)).not.toBe(answerText(first));
    const after = await post(gw.url, CHAT, body, cached());
    expect(after.headers['x-gateway-cache-status']).toBe('HIT');
    expect(answerText(after)).toBe(answerText(refreshed));
    expect(calls()).toBe(2);
  });

  it('replays a cached stream as a stream, usage included', async () => {
    const body = unique({ stream: true, stream_options: { include_usage: true } });
    const first = await post(gw.url, CHAT, body, cached());
    const second = await post(gw.url, CHAT, body, cached());
    expect(second.headers['x-gateway-cache-status']).toBe('HIT');
    expect(String(second.headers['content-type'])).toMatch(/^text\/event-stream/);
    expect(second.done).toBe(true);
    expect(second.events).toEqual(first.events);
    expect(second.events.at(-1).usage).toEqual({ prompt_tokens: 5, completion_tokens: 7, total_tokens: 12 });
    expect(calls()).toBe(1);
  });

  it('stores only complete 2xx answers', async () => {
    const body = unique();
    a.on(UPSTREAM_CHAT, upstreamError(500), answers('good'));
    expect((await post(gw.url, CHAT, body, cached())).status).toBe(502);
    const second = await post(gw.url, CHAT, body, cached());
    expect(second.headers['x-gateway-cache-status']).toBe('MISS');
    expect(answerText(second)).toBe('good');

    const streamBody = unique({ stream: true });
    a.on(
      UPSTREAM_CHAT,
      async (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        for (const c of streamChunks(['cut'], { done: false })) res.write(c);
        await sleep(50);
        res.socket?.destroy();
      },
      answers('whole'),
    );
    const cut = await post(gw.url, CHAT, streamBody, cached());
    expect(cut.done).toBe(false);
    const again = await post(gw.url, CHAT, streamBody, cached());
    expect(again.headers['x-gateway-cache-status']).toBe('MISS');
    expect(again.done).toBe(true);
    expect(calls()).toBe(4);
  });

  it('expires entries after max_age', async () => {
    const body = unique();
    await post(gw.url, CHAT, body, cached({ cache: { mode: 'simple', max_age: 1 } }));
    await sleep(1100);
    expect((await post(gw.url, CHAT, body, cached({ cache: { mode: 'simple', max_age: 1 } }))).headers['x-gateway-cache-status']).toBe('MISS');
    expect(calls()).toBe(2);
  });

  it('says DISABLED where the cache is off or the route cannot be cached, and nothing without a cache config', async () => {
    const body = unique();
    const off = await post(gw.url, CHAT, body, cached({ cache: { mode: 'disabled' } }));
    expect(off.headers['x-gateway-cache-status']).toBe('DISABLED');
    const child = { 'x-gateway-config': JSON.stringify({ cache: { mode: 'simple' }, targets: [{ provider: 'openai', cache: { mode: 'disabled' } }] }), 'x-gateway-api-key': KEY };
    expect((await post(gw.url, CHAT, body, child)).headers['x-gateway-cache-status']).toBe('DISABLED');
    const plain = await post(gw.url, CHAT, body, { 'x-gateway-provider': 'openai', 'x-gateway-api-key': KEY });
    expect(plain.headers['x-gateway-cache-status']).toBeUndefined();
    expect(calls()).toBe(3);
  });
});

describe('answer cache in Redis, shared by two instances', () => {
  const prefix = `gw-test-${randomUUID()}:`;
  let a: FakeUpstream;
  let one: TestGateway;
  let two: TestGateway;
  let redis: Redis;

  beforeAll(async () => {
    a = await new FakeUpstream().on(UPSTREAM_CHAT, answers('cached in redis')).start();
    const config = {
      providers: { openai: { baseUrl: `${a.url}/v1` } },
      cache: { store: 'redis' },
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

  it('a JSON answer and a stream stored by one instance are served by the other', async () => {
    const body = chatBody({ messages: [{ role: 'user', content: 'shared' }] });
    expect((await post(one.url, CHAT, body, cached())).headers['x-gateway-cache-status']).toBe('MISS');
    await sleep(50);
    const hit = await post(two.url, CHAT, body, cached());
    expect(hit.headers['x-gateway-cache-status']).toBe('HIT');
    expect(answerText(hit)).toBe('cached in redis');

    const streamBody = { ...body, stream: true };
    const first = await post(two.url, CHAT, streamBody, cached());
    await sleep(50);
    const replayed = await post(one.url, CHAT, streamBody, cached());
    expect(replayed.headers['x-gateway-cache-status']).toBe('HIT');
    expect(replayed.events).toEqual(first.events);
    expect(replayed.done).toBe(true);
    expect(a.received(UPSTREAM_CHAT)).toHaveLength(2);
    const keys = await redis.keys(`${prefix}cache:*`);
    expect(keys).toHaveLength(2);
    for (const key of keys) expect(await redis.get(key)).not.toContain(KEY);
    expect(await redis.pttl(keys[0]!)).toBeGreaterThan(50_000);
  });
});
