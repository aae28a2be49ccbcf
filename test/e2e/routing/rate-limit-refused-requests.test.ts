import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeUpstream, sleep } from '../../helpers/fake-upstream.js';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';
import { answers, CHAT, chatBody, post, UPSTREAM_CHAT, type Answer } from '../../helpers/routing-harness.js';

const HOUR = 3_600_000;
/** Waits out the last seconds of a clock-aligned window, so a test's requests share one window. */
async function awayFromWindowEdge(): Promise<void> {
  const left = HOUR - (Date.now() % HOUR);
  if (left < 10_000) await sleep(left + 50);
}

/** A gateway credential (a config key) of team red. */
const TEAM_KEY = 'gw-refused-requests-team-red-0001';

const NO_KEY_MESSAGE = 'No API key for openai: send it in x-gateway-api-key or Authorization: Bearer <key>.';
/** The 401 body of a request without a provider key (the same with or without rate limits). */
const NO_KEY_BODY = {
  status: 'failure',
  message: NO_KEY_MESSAGE,
  error: { type: 'authentication_error', code: 'invalid_api_key', message: NO_KEY_MESSAGE, param: null, provider: 'openai' },
};

const limitHeaders = (res: Answer) => ({
  limit: res.headers['x-ratelimit-limit'],
  remaining: res.headers['x-ratelimit-remaining'],
});

/**
 * CONTRACT section 4: gateway rate limits put their headers on every answer of a limited route,
 * errors included; the refusals of authenticate (no provider key, unknown provider, a bad
 * gateway credential) too, with the limits that can be counted for the request.
 */
describe('rate-limit headers on requests authenticate refuses', () => {
  let upstream: FakeUpstream;
  let gw: TestGateway;

  beforeAll(async () => {
    upstream = await new FakeUpstream()
      .on(UPSTREAM_CHAT, answers('ok'))
      .on('POST /v1/embeddings', { json: { object: 'list', data: [], model: 'e' } })
      .start();
    gw = await startGateway({
      providers: { openai: { baseUrl: `${upstream.url}/v1` } },
      auth: { apiKeys: [{ key: TEAM_KEY, user: 'ann', team: 'red' }] },
      rateLimits: [
        { per: 'ip', limit: 6, window: '1h', routes: ['/v1/chat/completions'] },
        { per: 'key', limit: 50, window: '1h', routes: ['/v1/chat/completions'] },
        { per: 'key', limit: 7, window: '1h', routes: ['/v1/completions'] },
        { per: 'team', limit: 2, window: '1h', routes: ['/v1/embeddings'] },
        { per: 'key', limit: 9, window: '1h', routes: ['/v1/embeddings'] },
      ],
    });
  });
  afterAll(async () => {
    await gw?.close();
    await upstream?.stop();
  });
  beforeEach(() => {
    upstream.requests.length = 0;
  });

  it('a 401 for a missing provider key carries the per: ip limit, counts once, and stays a 401 with the same body past the limit', async () => {
    await awayFromWindowEdge();
    const now = Math.floor(Date.now() / 1000);
    const first = await post(gw.url, CHAT, chatBody(), { 'x-gateway-provider': 'openai' });
    expect(first.status).toBe(401);
    expect(first.json).toEqual(NO_KEY_BODY);
    expect(first.headers['x-gateway-provider']).toBe('openai');
    // per: ip counted it; the per: key rule had no key to count (its limit, 50, is not shown).
    expect(limitHeaders(first)).toEqual({ limit: '6', remaining: '5' });
    const reset = Number(first.headers['x-ratelimit-reset']);
    expect(reset).toBeGreaterThan(now);
    expect(reset % 3600).toBe(0);
    expect(first.headers['retry-after']).toBeUndefined();

    // Each refused request is counted once.
    expect(limitHeaders(await post(gw.url, CHAT, chatBody(), { 'x-gateway-provider': 'openai' }))).toEqual({ limit: '6', remaining: '4' });
    const served = await post(gw.url, CHAT, chatBody(), { 'x-gateway-provider': 'openai', 'x-gateway-api-key': `sk-${randomUUID()}` });
    expect(served.status).toBe(200);
    expect(limitHeaders(served)).toEqual({ limit: '6', remaining: '3' });
    for (let i = 0; i < 3; i++) await post(gw.url, CHAT, chatBody(), { 'x-gateway-provider': 'openai' });

    // Past the per: ip limit, a request without a key is still the 401 (its body unchanged), the headers say 0.
    const past = await post(gw.url, CHAT, chatBody(), { 'x-gateway-provider': 'openai' });
    expect(past.status).toBe(401);
    expect(past.json).toEqual(NO_KEY_BODY);
    expect(limitHeaders(past)).toEqual({ limit: '6', remaining: '0' });
    expect(upstream.received(UPSTREAM_CHAT)).toHaveLength(1);
  });

  it('other refusals of authenticate carry the headers too: an unknown provider, a gateway credential the gateway does not know', async () => {
    await awayFromWindowEdge();
    const unknown = await post(gw.url, CHAT, chatBody(), { 'x-gateway-provider': 'no-such-provider', 'x-gateway-api-key': `sk-${randomUUID()}` });
    expect(unknown.status).toBe(400);
    expect(unknown.json.error).toMatchObject({ code: 'missing_required_parameter', param: 'x-gateway-provider' });
    expect(unknown.headers['x-ratelimit-limit']).toBeDefined();
    const badCredential = await post(gw.url, CHAT, chatBody(), {
      'x-gateway-provider': 'openai',
      'x-gateway-api-key': `sk-${randomUUID()}`,
      'x-gateway-token': 'gw-nobody-knows-this',
    });
    expect(badCredential.status).toBe(401);
    expect(badCredential.json.error).toMatchObject({ type: 'authentication_error', code: 'invalid_api_key' });
    expect(badCredential.json.error.message).toMatch(/^x-gateway-token: /);
    expect(badCredential.headers['x-ratelimit-limit']).toBeDefined();
    // Both a bad credential and no provider key: the missing key is what the answer says (as without limits).
    const both = await post(gw.url, CHAT, chatBody(), { 'x-gateway-provider': 'openai', 'x-gateway-token': 'gw-nobody-knows-this' });
    expect(both.status).toBe(401);
    expect(both.json).toEqual(NO_KEY_BODY);
    expect(both.headers['x-ratelimit-limit']).toBeDefined();
    expect(upstream.requests).toHaveLength(0);
  });

  it('a route limited only per: key has nothing to count without a key: no header, and the refusal spends no key counter', async () => {
    await awayFromWindowEdge();
    const body = { model: 'gpt-3.5-turbo-instruct', prompt: 'hi' };
    const refused = await post(gw.url, '/v1/completions', body, { 'x-gateway-provider': 'openai' });
    expect(refused.status).toBe(401);
    expect(refused.json).toEqual(NO_KEY_BODY);
    expect(refused.headers['x-ratelimit-limit']).toBeUndefined();
    expect(refused.headers['x-ratelimit-remaining']).toBeUndefined();
    // A gateway credential is no provider key: nothing is counted per key either.
    const withToken = await post(gw.url, '/v1/completions', body, { 'x-gateway-provider': 'openai', 'x-gateway-token': TEAM_KEY });
    expect(withToken.status).toBe(401);
    expect(withToken.headers['x-ratelimit-limit']).toBeUndefined();
  });

  it('a 401 for a missing provider key from a caller with a gateway credential counts per: team', async () => {
    await awayFromWindowEdge();
    const body = { model: 'text-embedding-3-small', input: 'x' };
    const asRed = (extra: Record<string, string> = {}) => ({ 'x-gateway-provider': 'openai', 'x-gateway-token': TEAM_KEY, ...extra });
    const refused = await post(gw.url, '/v1/embeddings', body, asRed());
    expect(refused.status).toBe(401);
    expect(refused.json).toEqual(NO_KEY_BODY);
    expect(limitHeaders(refused)).toEqual({ limit: '2', remaining: '1' });
    const key = `sk-${randomUUID()}`;
    const served = await post(gw.url, '/v1/embeddings', body, asRed({ 'x-gateway-api-key': key }));
    expect(served.status).toBe(200);
    expect(limitHeaders(served)).toEqual({ limit: '2', remaining: '0' });
    const limited = await post(gw.url, '/v1/embeddings', body, asRed({ 'x-gateway-api-key': key }));
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toBeDefined();
    expect(upstream.received('POST /v1/embeddings')).toHaveLength(1);
  });
});
