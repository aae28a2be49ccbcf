import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { FakeUpstream } from '../helpers/fake-upstream.js';
import { startGateway, type TestGateway } from '../helpers/start-gateway.js';
import { CHAT, chatBody, chatCompletion, post, UPSTREAM_CHAT } from '../helpers/routing-harness.js';

/**
 * Every provider-routed answer carries x-gateway-provider (CONTRACT section 2): an answer refused
 * before routing (validation) names the known provider the request asked for, as the 401 for a
 * missing key does; an unknown provider is named by none.
 */
describe('x-gateway-provider on answers refused before routing', () => {
  let upstream: FakeUpstream;
  let gw: TestGateway;
  const KEY = 'sk-provider-header-test-0001';

  beforeAll(async () => {
    upstream = await new FakeUpstream().on(UPSTREAM_CHAT, { json: chatCompletion('hi') }).start();
    gw = await startGateway({ providers: { openai: { baseUrl: `${upstream.url}/v1` }, anthropic: { baseUrl: upstream.url } } });
  });
  afterAll(async () => {
    await gw?.close();
    await upstream?.stop();
  });
  beforeEach(() => {
    upstream.requests.length = 0;
  });

  it.each(['openai', 'anthropic'])('a body that fails validation (%s): 400 with the named provider', async (provider) => {
    const res = await post(gw.url, CHAT, { model: 1, messages: [{ role: 'user', content: 'Hi' }] }, { 'x-gateway-provider': provider, 'x-gateway-api-key': KEY });
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ type: 'invalid_request_error', code: 'missing_required_parameter', param: 'model' });
    expect(res.headers['x-gateway-provider']).toBe(provider);
    expect(res.headers['x-gateway-request-id']).toBeDefined();
    expect(upstream.requests).toHaveLength(0);
  });

  it('malformed JSON: 400 with the named provider', async () => {
    const res = await request(`${gw.url}${CHAT}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-gateway-provider': 'openai', 'x-gateway-api-key': KEY },
      body: '{"model": "gpt-4o-mini",',
    });
    await res.body.text();
    expect(res.statusCode).toBe(400);
    expect(res.headers['x-gateway-provider']).toBe('openai');
    expect(upstream.requests).toHaveLength(0);
  });

  it('no key: 401 with the named provider (as before)', async () => {
    const res = await post(gw.url, CHAT, chatBody(), { 'x-gateway-provider': 'openai' });
    expect(res.status).toBe(401);
    expect(res.headers['x-gateway-provider']).toBe('openai');
  });

  it('an unknown provider is named by no header', async () => {
    const res = await post(gw.url, CHAT, chatBody(), { 'x-gateway-provider': 'no-such-provider', 'x-gateway-api-key': KEY });
    expect(res.status).toBe(400);
    expect(res.json.error.param).toBe('x-gateway-provider');
    expect(res.headers['x-gateway-provider']).toBeUndefined();
  });

  it('an answer names the provider that answered', async () => {
    const res = await post(gw.url, CHAT, chatBody(), { 'x-gateway-provider': 'openai', 'x-gateway-api-key': KEY });
    expect(res.status).toBe(200);
    expect(res.headers['x-gateway-provider']).toBe('openai');
    expect(upstream.received(UPSTREAM_CHAT)).toHaveLength(1);
  });
});
