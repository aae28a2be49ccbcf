import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeUpstream } from '../../helpers/fake-upstream.js';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';
import { answers, answerText, CHAT, chatBody, chatCompletion, post, UPSTREAM_CHAT } from '../../helpers/routing-harness.js';

const PLUGIN = join(import.meta.dirname, '..', '..', 'fixtures', 'plugins', 'misreading-provider.ts');
const KEY = 'sk-caller-key-unreadable-0001';

/**
 * An answer the provider's module cannot read (its translation or stream mapper throws a
 * TypeError on a shape it did not expect) is the upstream's bad answer: 502 provider_error,
 * which fallback moves on from, and not the gateway's own 500.
 */
describe('an upstream answer the provider module cannot read', () => {
  let misread: FakeUpstream;
  let openai: FakeUpstream;
  let gw: TestGateway;
  const direct = { 'x-gateway-provider': 'misreader', 'x-gateway-api-key': KEY };

  beforeAll(async () => {
    [misread, openai] = await Promise.all([new FakeUpstream().start(), new FakeUpstream().start()]);
    gw = await startGateway({
      plugins: [PLUGIN],
      providers: { misreader: { baseUrl: `${misread.url}/v1` }, openai: { baseUrl: `${openai.url}/v1` } },
    });
  });
  afterAll(async () => {
    await gw?.close();
    await Promise.all([misread?.stop(), openai?.stop()]);
  });
  beforeEach(() => {
    // Both upstreams answer OpenAI's shape, which the misreader's module does not read.
    for (const f of [misread, openai]) {
      f.requests.length = 0;
      f.on(UPSTREAM_CHAT, answers(f === misread ? 'from the misread upstream' : 'from openai'));
    }
  });

  it('a whole answer: 502 provider_error naming the provider; what the module could not read is logged, not answered', async () => {
    const res = await post(gw.url, CHAT, chatBody(), direct);
    expect(res.status).toBe(502);
    expect(res.json.error).toMatchObject({ type: 'provider_error', code: 'provider_error', message: 'misreader sent an answer the gateway cannot read.' });
    expect(res.text).not.toContain('TypeError');
    expect(misread.received(UPSTREAM_CHAT)).toHaveLength(1);
    const warned = gw.logs.records().filter((l) => l.msg === 'an upstream answer could not be read');
    expect(warned.at(-1)).toMatchObject({ level: 40, provider: 'misreader', requestId: res.headers['x-gateway-request-id'] });
    expect(warned.at(-1).err).toMatch(/^TypeError: /);
  });

  it('a stream whose first event the mapper cannot read: 502 provider_error before any byte', async () => {
    const res = await post(gw.url, CHAT, chatBody({ stream: true }), direct);
    expect(res.status).toBe(502);
    expect(res.json.error).toMatchObject({ type: 'provider_error', code: 'provider_error', message: 'misreader sent an answer the gateway cannot read.' });
  });

  it('fallback moves on from it to the next target, streamed or not', async () => {
    const config = {
      'x-gateway-config': JSON.stringify({ strategy: { mode: 'fallback' }, targets: [{ provider: 'misreader' }, { provider: 'openai', api_key: 'sk-target-openai-key-0001' }] }),
      'x-gateway-api-key': KEY,
    };
    for (const stream of [false, true]) {
      const res = await post(gw.url, CHAT, chatBody({ stream }), config);
      expect(res.status).toBe(200);
      expect(answerText(res)).toBe('from openai');
      expect(res.headers['x-gateway-provider']).toBe('openai');
    }
    expect(misread.received(UPSTREAM_CHAT)).toHaveLength(2);
    expect(openai.received(UPSTREAM_CHAT)).toHaveLength(2);
  });
});

/**
 * A JSON answer passed through as the upstream's bytes (forward does not parse what only passes
 * through) that a later stage must read (an output guardrail, a kept response) and that is not
 * JSON: the upstream's bad answer, 502, which fallback moves on from; never a 500, and never
 * handed to the caller unchecked.
 */
describe('a passed-through answer that is not JSON, where a stage must read it', () => {
  let upstream: FakeUpstream;
  let gw: TestGateway;
  const NOT_JSON = { raw: '{"id":"resp_1", "output": [ not json', headers: { 'content-type': 'application/json' } };
  const RESPONSE = {
    id: 'resp_good',
    object: 'response',
    created_at: 1,
    status: 'completed',
    model: 'gpt-4o-mini',
    output: [{ type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'kept answer', annotations: [] }] }],
    usage: { input_tokens: 3, output_tokens: 2, total_tokens: 5 },
  };
  const twice = (route: string) => ({
    'x-gateway-config': JSON.stringify({
      strategy: { mode: 'fallback' },
      targets: [
        { provider: 'openai', api_key: 'sk-first-target-key-0001', ...(route === CHAT ? { output_guardrails: ['no-secrets'] } : {}) },
        { provider: 'openai', api_key: 'sk-second-target-key-0002', ...(route === CHAT ? { output_guardrails: ['no-secrets'] } : {}) },
      ],
    }),
  });

  beforeAll(async () => {
    upstream = await new FakeUpstream().start();
    gw = await startGateway({
      providers: { openai: { baseUrl: `${upstream.url}/v1` } },
      guardrails: { 'no-secrets': { action: 'deny', checks: [{ type: 'regex', pattern: 'sk-[A-Za-z0-9]{8,}' }] } },
    });
  });
  afterAll(async () => {
    await gw?.close();
    await upstream?.stop();
  });
  beforeEach(() => {
    upstream.requests.length = 0;
  });

  it('an output guardrail: 502 provider_error, not the unchecked bytes', async () => {
    upstream.on(UPSTREAM_CHAT, { raw: '{"choices": sk-leakedsecret123 not json', headers: { 'content-type': 'application/json' } });
    const res = await post(gw.url, CHAT, chatBody(), {
      'x-gateway-config': JSON.stringify({ provider: 'openai', output_guardrails: ['no-secrets'] }),
      'x-gateway-api-key': KEY,
    });
    expect(res.status).toBe(502);
    expect(res.json.error).toMatchObject({ type: 'provider_error', code: 'provider_error', message: 'openai sent an answer that is not JSON.', provider: 'openai' });
    expect(res.text).not.toContain('sk-leakedsecret123');
  });

  it('a response the gateway keeps (store defaults to true): 502 provider_error, not a 500', async () => {
    upstream.on('POST /v1/responses', NOT_JSON);
    const res = await post(gw.url, '/v1/responses', { model: 'gpt-4o-mini', input: 'hi' }, { 'x-gateway-provider': 'openai', 'x-gateway-api-key': KEY });
    expect(res.status).toBe(502);
    expect(res.json.error).toMatchObject({ type: 'provider_error', code: 'provider_error', message: 'openai sent an answer that is not JSON.' });
  });

  it.each([
    [CHAT, UPSTREAM_CHAT, chatBody(), chatCompletion('checked answer')],
    ['/v1/responses', 'POST /v1/responses', { model: 'gpt-4o-mini', input: 'hi' }, RESPONSE],
  ])('%s: fallback moves on from it to the next target', async (route, upstreamRoute, body, good) => {
    upstream.on(upstreamRoute, NOT_JSON, { json: good });
    const res = await post(gw.url, route, body, twice(route));
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ id: (good as { id: string }).id });
    expect(upstream.received(upstreamRoute).map((r) => r.headers.authorization)).toEqual(['Bearer sk-first-target-key-0001', 'Bearer sk-second-target-key-0002']);
  });
});
