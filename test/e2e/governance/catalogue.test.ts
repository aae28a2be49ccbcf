import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { request } from 'undici';
import { FakeUpstream, type ReceivedRequest } from '../../helpers/fake-upstream.js';
import { fixtureJson } from '../../helpers/fixtures.js';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';
import { answers, CHAT, chatBody, post, UPSTREAM_CHAT } from '../../helpers/routing-harness.js';

const ADMIN = 'admin-token-catalogue-0123456789abcdef';
const OPENAI_HELD = 'sk-held-openai-catalogue-0001';
const ANTHROPIC_HELD = 'sk-ant-held-catalogue-0002';
const SECRET_KEY = 'ab'.repeat(32);

/** Every header value the upstream received, and its body, as one text. */
function everything(req: ReceivedRequest): string {
  return JSON.stringify(req.headers) + req.body.toString('utf8');
}

async function issueKey(url: string, body: Record<string, unknown>): Promise<string> {
  const res = await request(`${url}/v1/auth/tokens`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await res.body.json()) as { token: string };
  expect(res.statusCode).toBe(201);
  return json.token;
}

async function getJson(url: string, headers: Record<string, string>): Promise<{ status: number; json: any }> {
  const res = await request(url, { headers });
  return { status: res.statusCode, json: await res.body.json() };
}

/**
 * Contract section 8: clients send a gateway key and a catalogue model name only; the gateway
 * routes by the model through the credentials it holds, lists what each key may use, and
 * answers the same 404 for a model a key may not use as for one that does not exist.
 */
describe('the model catalogue with held credentials', () => {
  let openai: FakeUpstream;
  let anthropic: FakeUpstream;
  let elsewhere: FakeUpstream;
  let gw: TestGateway;
  let allKey: string;
  let claudeKey: string;

  beforeAll(async () => {
    [openai, anthropic, elsewhere] = await Promise.all([0, 1, 2].map(() => new FakeUpstream().start()));
    gw = await startGateway({
      logging: { level: 'warn' },
      auth: { adminToken: ADMIN },
      secrets: { key: SECRET_KEY },
      providers: { openai: { baseUrl: `${openai.url}/v1` }, anthropic: { baseUrl: anthropic.url } },
      routing: { allowCustomHost: true },
      credentials: {
        'openai-prod': { provider: 'openai', api_key: OPENAI_HELD },
        'anthropic-prod': { provider: 'anthropic', api_key: ANTHROPIC_HELD },
      },
      models: {
        'gpt-fast': {
          targets: [{ credential: 'openai-prod', model: 'gpt-4o-mini' }],
          context_window: 128000,
          max_output_tokens: 16384,
          price: { input: '0.00000015', output: '0.0000006' },
        },
        claude: { credential: 'anthropic-prod', model: 'claude-sonnet-4-5', context_window: 200000 },
        'openai/*': { credential: 'openai-prod' },
        'anthropic/*': { credential: 'anthropic-prod' },
      },
    });
    allKey = await issueKey(gw.url, { user: 'all@example.com', team: 'platform' });
    claudeKey = await issueKey(gw.url, { user: 'claude@example.com', models: ['claude'] });
  });
  afterAll(async () => {
    await gw?.close();
    await Promise.all([openai, anthropic, elsewhere].map((f) => f?.stop()));
  });
  beforeEach(() => {
    for (const f of [openai, anthropic, elsewhere]) f.requests.length = 0;
    openai.on(UPSTREAM_CHAT, answers('from openai'));
    elsewhere.on(UPSTREAM_CHAT, answers('from elsewhere'));
    anthropic.on('POST /v1/messages', { json: fixtureJson('anthropic', 'text') });
  });

  it('serves the openai SDK with only a gateway key and a model name: the held key goes upstream, the gateway key does not', async () => {
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: allKey, maxRetries: 0 });
    const answer = await client.chat.completions.create({ model: 'gpt-fast', messages: [{ role: 'user', content: 'Hi' }] });
    expect(answer.choices[0]!.message.content).toBe('from openai');
    const sent = openai.received(UPSTREAM_CHAT);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.headers.authorization).toBe(`Bearer ${OPENAI_HELD}`);
    expect(sent[0]!.json().model).toBe('gpt-4o-mini');
    expect(everything(sent[0]!)).not.toContain(allKey);
  });

  it('serves the Anthropic SDK with only a gateway key and a model name', async () => {
    const client = new Anthropic({ baseURL: gw.url, apiKey: allKey, maxRetries: 0 });
    const message = await client.messages.create({ model: 'claude', max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] });
    expect(message.type).toBe('message');
    const sent = anthropic.received('POST /v1/messages');
    expect(sent).toHaveLength(1);
    expect(sent[0]!.headers['x-api-key']).toBe(ANTHROPIC_HELD);
    expect(sent[0]!.json().model).toBe('claude-sonnet-4-5');
    expect(everything(sent[0]!)).not.toContain(allKey);
  });

  it('sends the caller’s own bytes upstream with only the model’s name (and, for a stream, the usage option) set in them', async () => {
    // Spacing, key order and escapes as a client wrote them, which serializing the body again would not keep.
    const written = '{ "messages": [ {"role": "user", "content": "caf\\u00e9 \\"model\\": x"} ],\n  "model" : "gpt-fast",  "temperature": 1.50 }';
    const res = await request(`${gw.url}${CHAT}`, { method: 'POST', headers: { authorization: `Bearer ${allKey}`, 'content-type': 'application/json' }, body: written });
    expect(res.statusCode).toBe(200);
    await res.body.text();
    expect(openai.received(UPSTREAM_CHAT)[0]!.body.toString('utf8')).toBe(written.replace('"gpt-fast"', '"gpt-4o-mini"'));

    openai.on(UPSTREAM_CHAT, { chunks: ['data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"hi"}}]}\n\n', 'data: [DONE]\n\n'] });
    const streamed = '{"model":"gpt-fast", "stream": true, "messages":[{"role":"user","content":"Hi"}]}';
    const stream = await request(`${gw.url}${CHAT}`, { method: 'POST', headers: { authorization: `Bearer ${allKey}`, 'content-type': 'application/json' }, body: streamed });
    expect(stream.statusCode).toBe(200);
    await stream.body.text();
    expect(openai.received(UPSTREAM_CHAT)[1]!.body.toString('utf8')).toBe(
      '{"model":"gpt-4o-mini", "stream": true, "messages":[{"role":"user","content":"Hi"}],"stream_options":{"include_usage":true}}',
    );
  });

  it('takes the gateway key in api-key and x-gateway-token too', async () => {
    for (const headers of [{ 'api-key': allKey }, { 'x-gateway-token': allKey }] as Record<string, string>[]) {
      const res = await post(gw.url, CHAT, chatBody({ model: 'gpt-fast' }), headers);
      expect(res.status).toBe(200);
    }
    expect(openai.received(UPSTREAM_CHAT).map((r) => r.headers.authorization)).toEqual([`Bearer ${OPENAI_HELD}`, `Bearer ${OPENAI_HELD}`]);
  });

  it('answers a model the key may not use exactly as one that does not exist: 404 model_not_found, param model, nothing sent', async () => {
    const notAllowed = await post(gw.url, CHAT, chatBody({ model: 'gpt-fast' }), { authorization: `Bearer ${claudeKey}` });
    const missing = await post(gw.url, CHAT, chatBody({ model: 'gpt-fastest' }), { authorization: `Bearer ${claudeKey}` });
    const missingForAll = await post(gw.url, CHAT, chatBody({ model: 'gpt-fastest' }), { authorization: `Bearer ${allKey}` });
    for (const res of [notAllowed, missing, missingForAll]) {
      expect(res.status).toBe(404);
      expect(res.json).toMatchObject({ status: 'failure', error: { type: 'provider_error', code: 'model_not_found', param: 'model' } });
    }
    // The same body but for the name the caller sent.
    expect(missing.json).toEqual(JSON.parse(JSON.stringify(notAllowed.json).replaceAll('gpt-fast', 'gpt-fastest')));
    expect(missingForAll.json).toEqual(missing.json);
    expect(openai.requests).toEqual([]);
  });

  it('lists per key exactly the models it may use, with context_window and price', async () => {
    const all = await getJson(`${gw.url}/v1/models?limit=100`, { authorization: `Bearer ${allKey}` });
    expect(all.status).toBe(200);
    const ids = all.json.data.map((m: { id: string }) => m.id);
    expect(ids).toContain('gpt-fast');
    expect(ids).toContain('claude');
    // A glob lists the models of its provider that the price table knows, priced from it.
    const globbed = all.json.data.find((m: { id: string }) => m.id === 'anthropic/claude-opus-4-5');
    expect(globbed).toMatchObject({ owned_by: 'anthropic', price: { input: '0.000005', output: '0.000025' } });
    const fast = all.json.data.find((m: { id: string }) => m.id === 'gpt-fast');
    expect(fast).toMatchObject({
      object: 'model',
      context_window: 128000,
      max_output_tokens: 16384,
      price: { input: '0.00000015', output: '0.0000006', source: 'models.gpt-fast.price' },
    });
    const claude = await getJson(`${gw.url}/v1/models`, { 'x-api-key': claudeKey });
    expect(claude.json).toEqual({ object: 'list', data: [expect.objectContaining({ id: 'claude', context_window: 200000 })], has_more: false });
    const page = await getJson(`${gw.url}/v1/models?limit=1`, { authorization: `Bearer ${allKey}` });
    expect(page.json.data).toHaveLength(1);
    expect(page.json.has_more).toBe(true);
  });

  it('retrieves one model through the openai SDK as the list shows it, and answers one the key may not use as one that does not exist', async () => {
    const all = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: allKey, maxRetries: 0 });
    const listed = (await getJson(`${gw.url}/v1/models?limit=100`, { authorization: `Bearer ${allKey}` })).json.data;
    // a glob's model too: the SDK sends its slash encoded in the path
    for (const id of ['gpt-fast', 'anthropic/claude-opus-4-5']) {
      const model = await all.models.retrieve(id);
      expect(model).toEqual(listed.find((m: { id: string }) => m.id === id));
    }
    // the key in the Anthropic SDK's header
    const claude = await getJson(`${gw.url}/v1/models/claude`, { 'x-api-key': claudeKey });
    expect(claude).toMatchObject({ status: 200, json: { id: 'claude', object: 'model', context_window: 200000 } });
    const notAllowed = await getJson(`${gw.url}/v1/models/gpt-fast`, { 'x-api-key': claudeKey });
    const missing = await getJson(`${gw.url}/v1/models/gpt-fastest`, { 'x-api-key': claudeKey });
    for (const res of [notAllowed, missing]) {
      expect(res.status).toBe(404);
      expect(res.json).toMatchObject({ status: 'failure', error: { type: 'provider_error', code: 'model_not_found', param: 'model' } });
    }
    expect(missing.json).toEqual(JSON.parse(JSON.stringify(notAllowed.json).replaceAll('gpt-fast', 'gpt-fastest')));
    const refused = await all.models.retrieve('gpt-fastest').catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(OpenAI.NotFoundError);
    // no gateway key: a 401 in the contract's shape; nothing goes upstream
    const anonymous = await getJson(`${gw.url}/v1/models/gpt-fast`, {});
    expect(anonymous).toMatchObject({ status: 401, json: { status: 'failure', error: { type: 'authentication_error', code: 'invalid_api_key' } } });
    expect([...openai.requests, ...anthropic.requests]).toEqual([]);
  });

  it('routes a provider glob: the part after the slash is the model, sent with the glob entry’s credential', async () => {
    const res = await post(gw.url, CHAT, chatBody({ model: 'openai/gpt-4.1' }), { authorization: `Bearer ${allKey}` });
    expect(res.status).toBe(200);
    const sent = openai.received(UPSTREAM_CHAT)[0]!;
    expect(sent.json().model).toBe('gpt-4.1');
    expect(sent.headers.authorization).toBe(`Bearer ${OPENAI_HELD}`);
  });

  it('answers a name with a control character (a NUL, a tab) as an unknown model, glob or not: 404, nothing sent', async () => {
    for (const model of ['openai/gpt-\u0000x', 'openai/\tgpt-4.1', 'gpt-fast\u0000']) {
      const res = await post(gw.url, CHAT, chatBody({ model }), { authorization: `Bearer ${allKey}` });
      expect(res.status).toBe(404);
      expect(res.json).toMatchObject({ error: { type: 'provider_error', code: 'model_not_found', param: 'model' } });
    }
    expect(openai.requests).toEqual([]);
  });

  it('refuses a caller config that sends a held credential to a host it chose: 400, nothing sent', async () => {
    for (const target of [
      { credential: 'openai-prod', custom_host: `${elsewhere.url}/v1` },
      { credential: 'openai-prod', base_url: `${elsewhere.url}/v1` },
      { custom_host: `${elsewhere.url}/v1`, targets: [{ credential: 'openai-prod' }] },
    ]) {
      const res = await post(gw.url, CHAT, chatBody(), { authorization: `Bearer ${allKey}`, 'x-gateway-config': JSON.stringify(target) });
      expect(res.status).toBe(400);
      expect(res.json.error.param).toBe('x-gateway-config');
      expect(res.json.error.message).toContain('never goes to an address the caller chose');
    }
    expect(elsewhere.requests).toEqual([]);
    expect(openai.requests).toEqual([]);
  });

  it('uses a held credential named in a caller config only for a gateway key allowed to use it', async () => {
    const config = { 'x-gateway-config': JSON.stringify({ credential: 'openai-prod' }) };
    const withKey = await post(gw.url, CHAT, chatBody(), { ...config, authorization: `Bearer ${allKey}` });
    expect(withKey.status).toBe(200);
    const noKey = await post(gw.url, CHAT, chatBody(), { ...config, authorization: 'Bearer sk-callers-own-key-0003' });
    const otherKey = await post(gw.url, CHAT, chatBody(), { ...config, authorization: `Bearer ${claudeKey}` });
    for (const res of [noKey, otherKey]) {
      expect(res.status).toBe(401);
      expect(res.json.error).toMatchObject({ type: 'authentication_error', code: 'invalid_api_key', provider: 'openai' });
      expect(res.text).not.toContain(OPENAI_HELD);
    }
    expect(openai.received(UPSTREAM_CHAT)).toHaveLength(1);
  });

  it('routes nothing by model for a request without a gateway key', async () => {
    const res = await post(gw.url, CHAT, chatBody({ model: 'gpt-fast' }), { authorization: 'Bearer sk-callers-own-key-0003' });
    expect(res.status).toBe(400);
    expect(res.json.error.param).toBe('x-gateway-provider');
    expect(openai.requests).toEqual([]);
  });
});
