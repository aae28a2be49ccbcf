/**
 * POST /v1/rerank and POST /v1/moderations end to end through the gateway, against fakes of
 * each provider's recorded wire format (test/fixtures/<provider>/rerank.json, moderation.json):
 * the request each provider receives, the answer the caller gets (Cohere's and Jina's rerank
 * shape, OpenAI's moderation shape), validation errors and the 400 for providers without the
 * operation, all in the contract's error shape.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeUpstream } from '../helpers/fake-upstream.js';
import { startGateway, type TestGateway } from '../helpers/start-gateway.js';
import { fixtureJson } from '../helpers/fixtures.js';

const KEY = 'sk-rerank-moderation-key-0123456789';
const DOCS = ['Berlin is the capital of Germany.', 'Bananas are yellow.', 'Paris is the capital of France.'];

let fake: FakeUpstream;
let gw: TestGateway;

beforeAll(async () => {
  fake = await new FakeUpstream()
    .on('POST /cohere/v2/rerank', { json: fixtureJson('cohere', 'rerank') })
    .on('POST /jina/v1/rerank', { json: fixtureJson('jina', 'rerank') })
    .on('POST /voyage/v1/rerank', { json: fixtureJson('voyage', 'rerank') })
    .on('POST /vllm/v1/rerank', { json: fixtureJson('jina', 'rerank') })
    .on('POST /openai/v1/moderations', { json: fixtureJson('openai', 'moderation') })
    .on('POST /mistral/v1/moderations', { json: fixtureJson('mistral-ai', 'moderation') })
    .start();
  gw = await startGateway({
    providers: {
      cohere: { baseUrl: `${fake.url}/cohere` },
      jina: { baseUrl: `${fake.url}/jina/v1` },
      voyage: { baseUrl: `${fake.url}/voyage/v1` },
      vllm: { baseUrl: `${fake.url}/vllm/v1` },
      openai: { baseUrl: `${fake.url}/openai/v1` },
      'mistral-ai': { baseUrl: `${fake.url}/mistral/v1` },
    },
  });
});

afterAll(async () => {
  await gw?.close();
  await fake?.stop();
});

async function post(path: string, provider: string, body: unknown) {
  const res = await fetch(`${gw.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-gateway-provider': provider, 'x-gateway-api-key': KEY },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any, headers: res.headers };
}

describe('POST /v1/rerank', () => {
  it('cohere: translated to v2 rerank (documents as texts, no return_documents); results best first, documents filled from the request', async () => {
    const res = await post('/v1/rerank', 'cohere', {
      model: 'rerank-v3.5',
      query: 'capital of France',
      documents: [DOCS[0], { text: DOCS[1] }, DOCS[2]],
      top_n: 2,
      return_documents: true,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const sent = fake.received('POST /cohere/v2/rerank').at(-1)!;
    expect(sent.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(sent.json()).toEqual({ model: 'rerank-v3.5', query: 'capital of France', documents: DOCS, top_n: 2 });
    expect(res.body.id).toBe('07734bd2-2473-4f07-94e1-0d9f0e6843cf');
    expect(res.body.results).toEqual([
      { index: 2, relevance_score: 0.999071, document: { text: DOCS[2] } },
      { index: 0, relevance_score: 0.32713068, document: { text: DOCS[0] } },
    ]);
    expect(res.headers.get('x-gateway-provider')).toBe('cohere');
  });

  it('jina: the request and answer pass in Jina’s shape (the same as the gateway’s)', async () => {
    const body = { model: 'jina-reranker-v2-base-multilingual', query: 'capital of France', documents: DOCS, top_n: 3, return_documents: true };
    const res = await post('/v1/rerank', 'jina', body);
    expect(res.status).toBe(200);
    const sent = fake.received('POST /jina/v1/rerank').at(-1)!;
    expect(sent.json()).toEqual(body);
    expect(sent.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(res.body).toEqual(fixtureJson('jina', 'rerank'));
  });

  it('voyage: top_n goes as top_k, max_tokens_per_doc is not sent, documents as texts; data becomes results, best first', async () => {
    const res = await post('/v1/rerank', 'voyage', {
      model: 'rerank-2.5',
      query: 'capital of France',
      documents: [{ text: DOCS[0] }, DOCS[1], DOCS[2]],
      top_n: 3,
      max_tokens_per_doc: 100,
    });
    expect(res.status).toBe(200);
    expect(fake.received('POST /voyage/v1/rerank').at(-1)!.json()).toEqual({ model: 'rerank-2.5', query: 'capital of France', documents: DOCS, top_k: 3 });
    expect(res.body.results).toEqual([
      { index: 2, relevance_score: 0.90625 },
      { index: 0, relevance_score: 0.4375 },
      { index: 1, relevance_score: 0.02 },
    ]);
    expect(res.body.usage).toEqual({ total_tokens: 26 });
    expect(res.body.model).toBe('rerank-2.5');
  });

  it('a self-hosted server with the rerank API (vllm) gets the request as it is', async () => {
    const res = await post('/v1/rerank', 'vllm', { model: 'BAAI/bge-reranker-v2-m3', query: 'q', documents: DOCS });
    expect(res.status).toBe(200);
    expect(fake.received('POST /vllm/v1/rerank').at(-1)!.json().documents).toEqual(DOCS);
  });

  it('a bad request is a 400 naming the field; nothing is sent', async () => {
    const before = fake.requests.length;
    for (const [body, param] of [
      [{ model: 'm', documents: DOCS }, 'query'],
      [{ model: 'm', query: 'q', documents: [] }, 'documents'],
      [{ model: 'm', query: 'q', documents: DOCS, top_n: 0 }, 'top_n'],
      [{ query: 'q', documents: DOCS }, 'model'],
    ] as const) {
      const res = await post('/v1/rerank', 'cohere', body);
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.error.type).toBe('invalid_request_error');
      expect(res.body.error.param).toBe(param);
    }
    expect(fake.requests.length).toBe(before);
  });

  it('a provider without a rerank API is a 400 naming the providers that have one', async () => {
    const res = await post('/v1/rerank', 'openai', { model: 'm', query: 'q', documents: DOCS });
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe('x-gateway-provider');
    expect(res.body.error.message).toMatch(/^Provider openai does not support POST \/v1\/rerank \(rerank\)\. Providers that serve it: .*cohere.*jina.*voyage/);
  });
});

describe('POST /v1/moderations', () => {
  it('openai: forwarded as it is, the answer passes through', async () => {
    const body = { model: 'omni-moderation-latest', input: 'I will hurt you' };
    const res = await post('/v1/moderations', 'openai', body);
    expect(res.status).toBe(200);
    const sent = fake.received('POST /openai/v1/moderations').at(-1)!;
    expect(sent.json()).toEqual(body);
    expect(sent.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(res.body).toEqual(fixtureJson('openai', 'moderation'));
  });

  it('mistral-ai: its moderation model by default; each result gets flagged from its categories', async () => {
    const res = await post('/v1/moderations', 'mistral-ai', { input: ['I will hurt you', 'hello'] });
    expect(res.status).toBe(200);
    expect(fake.received('POST /mistral/v1/moderations').at(-1)!.json()).toEqual({ input: ['I will hurt you', 'hello'], model: 'mistral-moderation-latest' });
    expect(res.body.results.map((r: any) => r.flagged)).toEqual([true, false]);
    expect(res.body.results[0].categories.violence_and_threats).toBe(true);
    expect(res.body.results[0].category_scores.violence_and_threats).toBe(0.9516);
    expect(res.body.model).toBe('mistral-moderation-latest');
  });

  it('a provider without a moderation model is a 400 saying so; nothing is sent', async () => {
    const before = fake.requests.length;
    const res = await post('/v1/moderations', 'groq', { input: 'hello' });
    expect(res.status).toBe(400);
    expect(res.body.error.type).toBe('invalid_request_error');
    expect(res.body.error.param).toBe('x-gateway-provider');
    expect(res.body.error.message).toContain('groq has no moderation model');
    expect(res.body.error.message).toMatch(/Providers that serve it: .*mistral-ai.*openai|Providers that serve it: .*openai/);
    expect(fake.requests.length).toBe(before);
  });

  it('a request without input, or with a bad input, is a 400 naming input', async () => {
    for (const body of [{ model: 'omni-moderation-latest' }, { input: 42 }, { input: [] }]) {
      const res = await post('/v1/moderations', 'openai', body);
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.error.param).toBe('input');
    }
  });
});
