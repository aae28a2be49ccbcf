import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeUpstream } from '../../helpers/fake-upstream.js';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';
import { answers, CHAT, chatBody, post, UPSTREAM_CHAT, upstreamError } from '../../helpers/routing-harness.js';

const CALLER_KEY = 'sk-caller-openai-key-5150';
const GROQ_CONFIGURED = 'gsk-configured-groq-key-8080';
const GATEWAY_KEY = 'cfg-fallback-keys-gateway-0001';

/**
 * A fallback target of another provider than the request's never receives the request's key:
 * it uses its own api_key or its provider's configured key; without one it fails as 401
 * invalid_api_key naming that provider, and nothing is sent to it.
 */
describe('keys go only where they belong', () => {
  let openai: FakeUpstream;
  let vllm: FakeUpstream;
  let groq: FakeUpstream;
  let mistral: FakeUpstream;
  let gw: TestGateway;

  const config = (targets: unknown[]) => JSON.stringify({ strategy: { mode: 'fallback' }, targets });

  beforeAll(async () => {
    [openai, vllm, groq, mistral] = await Promise.all([0, 1, 2, 3].map(() => new FakeUpstream().start()));
    gw = await startGateway({
      logging: { level: 'warn' },
      providers: {
        openai: { baseUrl: `${openai.url}/v1` },
        vllm: { baseUrl: `${vllm.url}/v1` },
        groq: { baseUrl: `${groq.url}/v1`, apiKey: GROQ_CONFIGURED },
        'mistral-ai': { baseUrl: `${mistral.url}/v1` },
      },
      auth: { apiKeys: [{ key: GATEWAY_KEY, user: 'fallback@example.com' }] },
    });
  });
  afterAll(async () => {
    await gw?.close();
    await Promise.all([openai, vllm, groq, mistral].map((f) => f?.stop()));
  });
  beforeEach(() => {
    for (const f of [openai, vllm, groq, mistral]) f.requests.length = 0;
    openai.on(UPSTREAM_CHAT, upstreamError(500));
    for (const f of [vllm, groq, mistral]) f.on(UPSTREAM_CHAT, answers('fallback answered'));
  });

  it('openai -> vllm: vllm gets no key at all (not the OpenAI key)', async () => {
    const res = await post(gw.url, CHAT, chatBody(), {
      'x-gateway-provider': 'openai',
      authorization: `Bearer ${CALLER_KEY}`,
      'x-gateway-config': config([{ provider: 'openai' }, { provider: 'vllm' }]),
    });
    expect(res.status).toBe(200);
    expect(openai.received(UPSTREAM_CHAT)[0]!.headers.authorization).toBe(`Bearer ${CALLER_KEY}`);
    const sent = vllm.received(UPSTREAM_CHAT)[0]!;
    expect(sent.headers.authorization).toBeUndefined();
    expect(JSON.stringify(sent.headers)).not.toContain(CALLER_KEY);
  });

  it('openai -> mistral without a key of its own: 401 invalid_api_key naming mistral-ai, nothing sent to it', async () => {
    const res = await post(gw.url, CHAT, chatBody(), {
      'x-gateway-provider': 'openai',
      'x-gateway-api-key': CALLER_KEY,
      'x-gateway-config': config([{ provider: 'openai' }, { provider: 'mistral-ai' }]),
    });
    expect(res.status).toBe(401);
    expect(res.json).toMatchObject({ status: 'failure', error: { type: 'authentication_error', code: 'invalid_api_key', provider: 'mistral-ai' } });
    expect(res.json.error.message).toContain('mistral-ai');
    expect(res.headers['x-gateway-provider']).toBe('mistral-ai');
    expect(mistral.requests).toEqual([]);
  });

  it("openai -> groq: with a gateway credential, groq uses its provider's configured key", async () => {
    const res = await post(gw.url, CHAT, chatBody(), {
      'x-gateway-provider': 'openai',
      authorization: `Bearer ${CALLER_KEY}`,
      'x-gateway-token': GATEWAY_KEY,
      'x-gateway-config': config([{ provider: 'openai' }, { provider: 'groq' }]),
    });
    expect(res.status).toBe(200);
    expect(groq.received(UPSTREAM_CHAT)[0]!.headers.authorization).toBe(`Bearer ${GROQ_CONFIGURED}`);
  });

  it('openai -> groq without a gateway credential: the configured groq key is not spent (401 naming groq, nothing sent)', async () => {
    const res = await post(gw.url, CHAT, chatBody(), {
      'x-gateway-provider': 'openai',
      authorization: `Bearer ${CALLER_KEY}`,
      'x-gateway-config': config([{ provider: 'openai' }, { provider: 'groq' }]),
    });
    expect(res.status).toBe(401);
    expect(res.json).toMatchObject({ status: 'failure', error: { type: 'authentication_error', code: 'invalid_api_key', provider: 'groq' } });
    expect(res.json.error.message).toContain('gateway credential');
    expect(groq.requests).toEqual([]);
    expect(res.text).not.toContain(GROQ_CONFIGURED);
  });

  it("a target's own api_key wins over the configured one", async () => {
    await post(gw.url, CHAT, chatBody(), {
      'x-gateway-provider': 'openai',
      authorization: `Bearer ${CALLER_KEY}`,
      'x-gateway-config': config([{ provider: 'openai' }, { provider: 'groq', api_key: 'gsk-target-own-key-1' }]),
    });
    expect(groq.received(UPSTREAM_CHAT)[0]!.headers.authorization).toBe('Bearer gsk-target-own-key-1');
  });

  it("without x-gateway-provider, the key belongs to the provider of the config's first target", async () => {
    const res = await post(gw.url, CHAT, chatBody(), { authorization: `Bearer ${CALLER_KEY}`, 'x-gateway-config': config([{ provider: 'openai' }, { provider: 'mistral-ai' }]) });
    expect(openai.received(UPSTREAM_CHAT)[0]!.headers.authorization).toBe(`Bearer ${CALLER_KEY}`);
    expect(res.status).toBe(401);
    expect(mistral.requests).toEqual([]);
  });

  it('a target of the same provider as the request keeps the request key', async () => {
    openai.on(UPSTREAM_CHAT, upstreamError(500), answers('second openai target'));
    const res = await post(gw.url, CHAT, chatBody(), {
      'x-gateway-provider': 'openai',
      authorization: `Bearer ${CALLER_KEY}`,
      'x-gateway-config': config([{ provider: 'openai' }, { provider: 'openai', override_params: { model: 'gpt-4o' } }]),
    });
    expect(res.status).toBe(200);
    expect(openai.received(UPSTREAM_CHAT).map((r) => r.headers.authorization)).toEqual([`Bearer ${CALLER_KEY}`, `Bearer ${CALLER_KEY}`]);
  });
});
