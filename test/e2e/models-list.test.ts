import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { FakeUpstream } from '../helpers/fake-upstream.js';
import { startGateway, type TestGateway } from '../helpers/start-gateway.js';

/** 25 models, listed by the upstream oldest first (created 1000, 1001, ...). */
const MODELS = Array.from({ length: 25 }, (_, i) => ({ id: `model-${String(i).padStart(2, '0')}`, object: 'model', created: 1000 + i, owned_by: 'system' }));

describe('GET /v1/models as the contract list', () => {
  let upstream: FakeUpstream;
  let gw: TestGateway;
  const headers = { 'x-gateway-provider': 'openai', authorization: 'Bearer sk-models-test-1234' };

  beforeAll(async () => {
    upstream = await new FakeUpstream().on('GET /v1/models', { json: { object: 'list', data: MODELS } }).start();
    gw = await startGateway({ providers: { openai: { baseUrl: `${upstream.url}/v1` } } });
  });
  afterAll(async () => {
    await gw?.close();
    await upstream?.stop();
  });

  it('answers the newest 20 first with has_more', async () => {
    const res = await fetch(`${gw.url}/v1/models`, { headers });
    expect(res.status).toBe(200);
    const body: any = await res.json();
    expect(body.object).toBe('list');
    expect(body.has_more).toBe(true);
    expect(body.data).toHaveLength(20);
    expect(body.data[0].id).toBe('model-24');
    expect(body.data[19].id).toBe('model-05');
  });

  it('pages with limit and after', async () => {
    const res = await fetch(`${gw.url}/v1/models?limit=10&after=model-05`, { headers });
    const body: any = await res.json();
    expect(body.data.map((m: { id: string }) => m.id)).toEqual(['model-04', 'model-03', 'model-02', 'model-01', 'model-00']);
    expect(body.has_more).toBe(false);
  });

  it('refuses a limit out of bounds', async () => {
    const res = await fetch(`${gw.url}/v1/models?limit=101`, { headers });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error).toMatchObject({ code: 'missing_required_parameter', param: 'limit' });
  });

  it('works through the openai SDK', async () => {
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: 'sk-models-test-1234', defaultHeaders: { 'x-gateway-provider': 'openai' } });
    const page = await client.models.list();
    expect(page.data).toHaveLength(20);
    expect(page.data[0]!.id).toBe('model-24');
  });
});
