import { randomUUID } from 'node:crypto';
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
const newKey = () => `sk-${randomUUID()}`;
const inConfig = (config: Record<string, unknown>, extra: Record<string, string> = {}) => ({ 'x-gateway-config': JSON.stringify(config), ...extra });

/** `per: key` counts the provider key a caller brings in its own routing config as it counts one sent in x-gateway-api-key. */
describe('per-key rate limits and the keys of a caller routing config', () => {
  let a: FakeUpstream;
  let gw: TestGateway;

  beforeAll(async () => {
    a = await new FakeUpstream()
      .on(UPSTREAM_CHAT, answers('ok'))
      .on('POST /v1/completions', {
        json: {
          id: 'cmpl-1',
          object: 'text_completion',
          created: 1,
          model: 'gpt-3.5-turbo-instruct',
          choices: [],
          usage: { prompt_tokens: 5, completion_tokens: 7, total_tokens: 12 },
        },
      })
      .start();
    gw = await startGateway({
      providers: { openai: { baseUrl: `${a.url}/v1` } },
      configs: { held: { provider: 'openai', api_key: 'sk-operator-held-key-000001' } },
      rateLimits: [
        { per: 'key', limit: 2, window: '1h', routes: ['/v1/chat/completions'] },
        { per: 'key', limit: 1000, window: '1h', tokens: 20, routes: ['/v1/completions'] },
      ],
    });
  });
  afterAll(async () => {
    await gw?.close();
    await a?.stop();
  });

  it('counts an api_key sent with x-gateway-provider, with the X-RateLimit headers, and refuses past the limit', async () => {
    await awayFromWindowEdge();
    const key = newKey();
    const headers = inConfig({ api_key: key }, { 'x-gateway-provider': 'openai' });
    const first = await post(gw.url, CHAT, chatBody(), headers);
    expect(first.status).toBe(200);
    expect(first.headers['x-ratelimit-limit']).toBe('2');
    expect(first.headers['x-ratelimit-remaining']).toBe('1');
    expect(Number(first.headers['x-ratelimit-reset']) % 3600).toBe(0);
    expect((await post(gw.url, CHAT, chatBody(), headers)).headers['x-ratelimit-remaining']).toBe('0');
    const refused = await post(gw.url, CHAT, chatBody(), headers);
    expect(refused.status).toBe(429);
    expect(refused.json.error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limit_exceeded' });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(refused.text).not.toContain(key);
  });

  it('counts the api_key of a config that names its provider itself (no x-gateway-provider)', async () => {
    await awayFromWindowEdge();
    const headers = inConfig({ provider: 'openai', api_key: newKey() });
    const remaining: string[] = [];
    for (let i = 0; i < 2; i++) {
      const res = await post(gw.url, CHAT, chatBody(), headers);
      expect(res.status).toBe(200);
      remaining.push(String(res.headers['x-ratelimit-remaining']));
    }
    expect(remaining).toEqual(['1', '0']);
    expect((await post(gw.url, CHAT, chatBody(), headers)).status).toBe(429);
  });

  it('a key counts in one counter whether it came in x-gateway-api-key or in the config', async () => {
    await awayFromWindowEdge();
    const key = newKey();
    const byHeader = await post(gw.url, CHAT, chatBody(), { 'x-gateway-provider': 'openai', 'x-gateway-api-key': key });
    expect(byHeader.headers['x-ratelimit-remaining']).toBe('1');
    const byConfig = await post(gw.url, CHAT, chatBody(), inConfig({ provider: 'openai', api_key: key }));
    expect(byConfig.headers['x-ratelimit-remaining']).toBe('0');
    expect((await post(gw.url, CHAT, chatBody(), inConfig({ provider: 'openai', api_key: key }))).status).toBe(429);
  });

  it('counts every key of a config, so a target that is never chosen cannot carry the limit for another', async () => {
    await awayFromWindowEdge();
    const decoy = newKey();
    const used = newKey();
    const config = { provider: 'openai', strategy: { mode: 'loadbalance' }, targets: [{ api_key: decoy, weight: 0 }, { api_key: used }] };
    for (let i = 0; i < 2; i++) expect((await post(gw.url, CHAT, chatBody(), inConfig(config))).status).toBe(200);
    // The key that went upstream has spent its limit, whichever way it comes now.
    expect((await post(gw.url, CHAT, chatBody(), { 'x-gateway-provider': 'openai', 'x-gateway-api-key': used })).status).toBe(429);
    expect(a.received(UPSTREAM_CHAT).at(-1)!.headers.authorization).toBe(`Bearer ${used}`);
  });

  it('charges the token budget of a key given in the config', async () => {
    await awayFromWindowEdge();
    const headers = inConfig({ provider: 'openai', api_key: newKey() });
    const body = { model: 'gpt-3.5-turbo-instruct', prompt: 'Hi' };
    const first = await post(gw.url, '/v1/completions', body, headers);
    expect(first.status).toBe(200);
    expect(first.headers['x-ratelimit-limit-tokens']).toBe('20');
    expect(first.headers['x-ratelimit-remaining-tokens']).toBe('20');
    await sleep(50);
    const second = await post(gw.url, '/v1/completions', body, headers);
    expect(second.status).toBe(200);
    expect(second.headers['x-ratelimit-remaining-tokens']).toBe('8');
    await sleep(50);
    const refused = await post(gw.url, '/v1/completions', body, headers);
    expect(refused.status).toBe(429);
    expect(refused.json.error.message).toMatch(/20 tokens per 1h per key/);
  });

  it('does not count the key of an operator config (configs.<name>): it is not the caller’s', async () => {
    await awayFromWindowEdge();
    const res = await post(gw.url, CHAT, chatBody(), { 'x-gateway-config': 'held' });
    expect(res.headers['x-ratelimit-limit']).toBeUndefined();
  });
});
