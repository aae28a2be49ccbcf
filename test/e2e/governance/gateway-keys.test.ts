import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { request } from 'undici';
import { FakeUpstream } from '../../helpers/fake-upstream.js';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';
import { answers, CHAT, chatBody, post, streamChunks, UPSTREAM_CHAT } from '../../helpers/routing-harness.js';
import { dropSharedState, PG_URL } from '../../helpers/shared-stores.js';
import { eventually } from '../../helpers/mcp.js';
import { PARALLEL_SLOTS } from '../../../src/features/governance/keys/key-limits-stage.js';

const ADMIN = 'admin-token-gateway-keys-0123456789abcdef';
const HELD = 'sk-held-gateway-keys-0001';
const admin = { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' };

async function adminCall(url: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await request(`${url}${path}`, { method: 'POST', headers: admin, body: JSON.stringify(body ?? {}) });
  return { status: res.statusCode, json: await res.body.json() };
}

const chat = (url: string, key: string, extra: Record<string, string> = {}) => post(url, CHAT, chatBody({ model: 'gpt' }), { authorization: `Bearer ${key}`, ...extra });

/**
 * Contract section 8: gateway keys carry models, mcp permissions, limits, budgets and metadata;
 * rotate with a grace period, block and unblock; maxParallel slots are released however a
 * request ends (in the SQL store, SQLite or PostgreSQL, and in Redis).
 */
const pgSchema = `test_gw_keys_${process.pid}_${Date.now()}`;

describe.each([
  ['on SQLite', undefined, undefined],
  ['on PostgreSQL', undefined, { type: 'postgres', url: PG_URL, schema: pgSchema }],
  ['in Redis', { url: 'redis://127.0.0.1:6379', keyPrefix: `gw-keys-test-${process.pid}-${Date.now()}:` }, undefined],
] as const)('gateway keys (slots %s)', (_label, redis, storage) => {
  let upstream: FakeUpstream;
  let gw: TestGateway;
  const issue = async (body: Record<string, unknown>) => {
    const res = await adminCall(gw.url, '/v1/auth/tokens', { user: 'dev@example.com', ...body });
    expect(res.status).toBe(201);
    return res.json as { id: string; token: string } & Record<string, unknown>;
  };

  beforeAll(async () => {
    upstream = await new FakeUpstream().start();
    gw = await startGateway({
      logging: { level: 'warn' },
      auth: { adminToken: ADMIN },
      ...(redis ? { redis } : {}),
      ...(storage ? { storage } : {}),
      providers: { openai: { baseUrl: `${upstream.url}/v1` } },
      credentials: { main: { provider: 'openai', api_key: HELD } },
      models: { gpt: { credential: 'main', model: 'gpt-4o-mini' } },
    });
  });
  afterAll(async () => {
    await gw?.close();
    await upstream?.stop();
    if (redis) await dropSharedState('redis', redis.keyPrefix, '');
    if (storage) await dropSharedState('postgres', '', storage.schema);
  });
  beforeEach(() => {
    upstream.requests.length = 0;
    upstream.on(UPSTREAM_CHAT, answers('ok'));
  });

  it('keeps the fields of a key and shows them without its value', async () => {
    const key = await issue({
      models: ['gpt', 'openai/*'],
      mcp: { servers: ['docs'] },
      limits: { rpm: 100, tpm: 100000, maxParallel: 4 },
      budgets: [{ limit_usd: 10, window: { period: 'month' } }],
      metadata: { assertsCustomer: true, owner: 'search' },
    });
    expect(key).toMatchObject({ models: ['gpt', 'openai/*'], mcp: { servers: ['docs'] }, permissions: { servers: ['docs'] }, limits: { maxParallel: 4 }, blocked: false });
    const both = await adminCall(gw.url, '/v1/auth/tokens', { user: 'x', mcp: {}, permissions: {} });
    expect(both.status).toBe(400);
    expect(both.json.error.param).toBe('mcp');
    const list = await request(`${gw.url}/v1/auth/tokens`, { headers: admin });
    const text = await list.body.text();
    expect(text).toContain(key.id);
    expect(text).not.toContain(key.token);
  });

  it('lets a key name the customer only when its metadata asserts customers', async () => {
    const plain = await issue({});
    const asserting = await issue({ metadata: { assertsCustomer: true } });
    const refused = await chat(gw.url, plain.token, { 'x-gateway-customer': 'acme' });
    expect(refused.status).toBe(403);
    expect(refused.json.error).toMatchObject({ type: 'permission_error', code: 'insufficient_permissions' });
    expect((await chat(gw.url, asserting.token, { 'x-gateway-customer': 'acme' })).status).toBe(200);
    // Requests with one key share what its check grants: a customer named by one request is on its row only.
    expect((await chat(gw.url, asserting.token)).status).toBe(200);
    expect((await chat(gw.url, asserting.token, { 'x-gateway-customer': 'globex' })).status).toBe(200);
    const byCustomer = await eventually(async () => {
      const res = await request(`${gw.url}/v1/admin/usage?group_by=customer`, { headers: admin });
      const lines = ((await res.body.json()) as { data: Array<{ group: string | null; requests: number }> }).data;
      const count = (name: string) => lines.find((l) => l.group === name)?.requests ?? 0;
      if (count('acme') + count('globex') < 2) throw new Error(`rows not written yet: ${JSON.stringify(lines)}`);
      return { acme: count('acme'), globex: count('globex') };
    });
    expect(byCustomer).toEqual({ acme: 1, globex: 1 });
  });

  it('blocks and unblocks a key: 403 while blocked, nothing sent', async () => {
    const key = await issue({});
    const blocked = await adminCall(gw.url, `/v1/auth/tokens/${key.id}/block`);
    expect(blocked.json).toMatchObject({ id: key.id, blocked: true });
    const refused = await chat(gw.url, key.token);
    expect(refused.status).toBe(403);
    expect(refused.json.error).toMatchObject({ type: 'permission_error', code: 'insufficient_permissions' });
    expect(refused.json.error.message).toContain('blocked');
    expect(upstream.requests).toEqual([]);
    expect((await adminCall(gw.url, `/v1/auth/tokens/${key.id}/unblock`)).json.blocked).toBe(false);
    expect((await chat(gw.url, key.token)).status).toBe(200);
    expect((await adminCall(gw.url, '/v1/auth/tokens/tok_nothing/block')).status).toBe(404);
  });

  it('rotates with a grace period: the old value works beside the new one until it ends; without one it stops at once', async () => {
    const key = await issue({});
    const rotated = await adminCall(gw.url, `/v1/auth/tokens/${key.id}/rotate`, { gracePeriod: '1h' });
    expect(rotated.status).toBe(200);
    const now = Math.floor(Date.now() / 1000);
    expect(rotated.json.previous_valid_until).toBeGreaterThan(now + 3500);
    expect((await chat(gw.url, key.token)).status).toBe(200);
    expect((await chat(gw.url, rotated.json.token)).status).toBe(200);
    const again = await adminCall(gw.url, `/v1/auth/tokens/${key.id}/rotate`);
    expect(again.status).toBe(200);
    for (const old of [key.token, rotated.json.token]) expect((await chat(gw.url, old)).status).toBe(401);
    expect((await chat(gw.url, again.json.token)).status).toBe(200);
    const bad = await adminCall(gw.url, `/v1/auth/tokens/${key.id}/rotate`, { gracePeriod: '60d' });
    expect(bad.status).toBe(400);
    expect(bad.json.error.param).toBe('gracePeriod');
  });

  it('refuses requests past the key’s rpm with 429 and Retry-After', async () => {
    for (let attempt = 0; attempt < 3; attempt++) {
      const key = await issue({ limits: { rpm: 2 } });
      const minute = Math.floor(Date.now() / 60_000);
      const statuses = [];
      let last;
      for (let i = 0; i < 3; i++) statuses.push((last = await chat(gw.url, key.token)).status);
      // A minute boundary crossed between the requests starts a new window: try again.
      if (Math.floor(Date.now() / 60_000) !== minute) continue;
      expect(statuses).toEqual([200, 200, 429]);
      expect(last!.json.error.code).toBe('rate_limit_exceeded');
      expect(Number(last!.headers['retry-after'])).toBeGreaterThan(0);
      return;
    }
    throw new Error('three minute boundaries crossed');
  });

  it('refuses requests once the key’s tpm is used up by the answers’ usage', async () => {
    for (let attempt = 0; attempt < 3; attempt++) {
      const key = await issue({ limits: { tpm: 12 } });
      const minute = Math.floor(Date.now() / 60_000);
      // Each answer reports 12 tokens: the first fits, and uses the minute's budget up.
      const first = await chat(gw.url, key.token);
      await vi.waitFor(async () => expect((await chat(gw.url, key.token)).status).toBe(429), { timeout: 5000, interval: 50 });
      if (Math.floor(Date.now() / 60_000) !== minute) continue;
      expect(first.status).toBe(200);
      return;
    }
    throw new Error('three minute boundaries crossed');
  });

  it('releases maxParallel slots of 100 cancelled streams, of finished streams and of failures', async () => {
    const slots = gw.gateway.services.get(PARALLEL_SLOTS)!;
    const key = await issue({ limits: { maxParallel: 100 } });
    upstream.on(UPSTREAM_CHAT, { chunks: streamChunks(['first'], { done: false }), end: 'hang' });
    const controllers = Array.from({ length: 100 }, () => new AbortController());
    const opened = await Promise.all(
      controllers.map(async (controller) => {
        const res = await request(`${gw.url}${CHAT}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key.token}`, 'content-type': 'application/json' },
          body: JSON.stringify(chatBody({ model: 'gpt', stream: true })),
          signal: controller.signal,
        });
        // The first chunk arrived: the request holds its slot and the stream is running.
        const reader = res.body[Symbol.asyncIterator]();
        await reader.next();
        return { res, status: res.statusCode };
      }),
    );
    expect(opened.every((o) => o.status === 200)).toBe(true);
    expect(await slots.held(key.id)).toBe(100);
    const over = await chat(gw.url, key.token);
    expect(over.status).toBe(429);
    expect(over.json.error.message).toContain('maxParallel');
    for (const c of controllers) c.abort();
    for (const o of opened) o.res.body.destroy();
    await vi.waitFor(async () => expect(await slots.held(key.id)).toBe(0), { timeout: 10_000, interval: 20 });

    upstream.on(UPSTREAM_CHAT, answers('ok'));
    const streamed = await post(gw.url, CHAT, chatBody({ model: 'gpt', stream: true }), { authorization: `Bearer ${key.token}` });
    expect(streamed.status).toBe(200);
    expect(streamed.done).toBe(true);
    upstream.on(UPSTREAM_CHAT, { json: { error: { message: 'bad' } }, status: 400 });
    expect((await chat(gw.url, key.token)).status).toBe(400);
    const invalid = await post(gw.url, CHAT, { model: 'gpt' }, { authorization: `Bearer ${key.token}` });
    expect(invalid.status).toBe(400);
    await vi.waitFor(async () => expect(await slots.held(key.id)).toBe(0), { timeout: 10_000, interval: 20 });
  });
});
