import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { FakeUpstream } from '../helpers/fake-upstream.js';
import { startGateway, type TestGateway } from '../helpers/start-gateway.js';

/**
 * GET /v1/models on anthropic: Anthropic's own list (GET <baseUrl>/v1/models with x-api-key and
 * anthropic-version) translated into OpenAI's, in the contract's list (newest first, `limit` and
 * `after`, `has_more`).
 */
const KEY = 'sk-ant-models-test-key-0001';
const HEADERS = { 'x-gateway-provider': 'anthropic', 'x-gateway-api-key': KEY };
const MODELS = [
  { type: 'model', id: 'claude-sonnet-4-5-20250929', display_name: 'Claude Sonnet 4.5', created_at: '2025-09-29T00:00:00Z' },
  { type: 'model', id: 'claude-opus-4-1-20250805', display_name: 'Claude Opus 4.1', created_at: '2025-08-05T00:00:00Z' },
  { type: 'model', id: 'claude-3-5-haiku-20241022', display_name: 'Claude Haiku 3.5', created_at: '2024-10-22T00:00:00Z' },
];
const LIST = { data: MODELS, has_more: false, first_id: MODELS[0]!.id, last_id: MODELS[2]!.id };

describe('GET /v1/models on anthropic', () => {
  let upstream: FakeUpstream;
  let gw: TestGateway;

  beforeAll(async () => {
    upstream = await new FakeUpstream().start();
    gw = await startGateway({ providers: { anthropic: { baseUrl: upstream.url, headers: { 'x-operator-header': 'op' } } } });
  });
  afterAll(async () => {
    await gw?.close();
    await upstream?.stop();
  });
  beforeEach(() => {
    upstream.requests.length = 0;
    upstream.on('GET /v1/models', { json: LIST, headers: { 'request-id': 'req_models_1' } });
  });

  it("answers OpenAI's list shape, newest first", async () => {
    const res = await fetch(`${gw.url}/v1/models`, { headers: HEADERS });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-gateway-provider')).toBe('anthropic');
    expect(res.headers.get('x-request-id')).toBe('req_models_1');
    // The contract's list (windowList also names the page's first and last ids).
    expect(await res.json()).toMatchObject({
      object: 'list',
      data: [
        { id: 'claude-sonnet-4-5-20250929', object: 'model', created: Date.parse('2025-09-29T00:00:00Z') / 1000, owned_by: 'anthropic' },
        { id: 'claude-opus-4-1-20250805', object: 'model', created: Date.parse('2025-08-05T00:00:00Z') / 1000, owned_by: 'anthropic' },
        { id: 'claude-3-5-haiku-20241022', object: 'model', created: Date.parse('2024-10-22T00:00:00Z') / 1000, owned_by: 'anthropic' },
      ],
      has_more: false,
    });
    const sent = upstream.received('GET /v1/models');
    expect(sent).toHaveLength(1);
    expect(sent[0]!.url).toBe('/v1/models?limit=1000');
    expect(sent[0]!.headers).toMatchObject({ 'x-api-key': KEY, 'anthropic-version': '2023-06-01', 'x-operator-header': 'op' });
    expect(sent[0]!.headers.authorization).toBeUndefined();
  });

  it('pages with limit and after; the upstream holding more says has_more', async () => {
    const first: any = await (await fetch(`${gw.url}/v1/models?limit=2`, { headers: HEADERS })).json();
    expect(first.data.map((m: { id: string }) => m.id)).toEqual(['claude-sonnet-4-5-20250929', 'claude-opus-4-1-20250805']);
    expect(first.has_more).toBe(true);
    const rest: any = await (await fetch(`${gw.url}/v1/models?limit=2&after=claude-opus-4-1-20250805`, { headers: HEADERS })).json();
    expect(rest.data.map((m: { id: string }) => m.id)).toEqual(['claude-3-5-haiku-20241022']);
    expect(rest.has_more).toBe(false);
    upstream.on('GET /v1/models', { json: { ...LIST, has_more: true } });
    const more: any = await (await fetch(`${gw.url}/v1/models`, { headers: HEADERS })).json();
    expect(more.has_more).toBe(true);
  });

  it('works through the openai SDK', async () => {
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: KEY, defaultHeaders: { 'x-gateway-provider': 'anthropic' } });
    const page = await client.models.list();
    expect(page.data.map((m) => m.id)).toEqual(MODELS.map((m) => m.id));
    expect(upstream.received('GET /v1/models')[0]!.headers['x-api-key']).toBe(KEY);
  });

  it('an answer that is not a model list: 502 provider_error', async () => {
    upstream.on('GET /v1/models', { json: {} });
    const res = await fetch(`${gw.url}/v1/models`, { headers: HEADERS });
    expect(res.status).toBe(502);
    expect(((await res.json()) as any).error).toMatchObject({ type: 'provider_error', message: 'anthropic sent an answer that is not a model list.', provider: 'anthropic' });
  });

  it("anthropic's 401 is the contract's 401", async () => {
    upstream.on('GET /v1/models', { json: { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } }, status: 401 });
    const res = await fetch(`${gw.url}/v1/models`, { headers: HEADERS });
    expect(res.status).toBe(401);
    expect(((await res.json()) as any).error).toMatchObject({ type: 'authentication_error', provider: 'anthropic' });
  });
});
