import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { request } from 'undici';
import { FakeUpstream } from '../../../../helpers/fake-upstream.js';
import { startGateway, type TestGateway } from '../../../../helpers/start-gateway.js';
import { fixtureChunks, fixtureJson } from '../../../../helpers/fixtures.js';
import azure from '../../../../../src/features/models/providers/azure-openai/index.js';
import type { ProviderCall } from '../../../../../src/features/models/providers/provider.js';

const KEY = '6f1c2b9e8d7a4c3b2a1f0e9d8c7b6a5f';
const DEPLOYMENT = '/openai/deployments/gpt4o-prod';
const VERSION = 'api-version=2024-10-21';

describe('azure-openai through the gateway', () => {
  let upstream: FakeUpstream;
  let gw: TestGateway;
  let client: OpenAI;
  const headers = {
    'x-gateway-provider': 'azure-openai',
    'x-gateway-azure-resource-name': 'acme-openai',
    'x-gateway-azure-deployment-id': 'gpt4o-prod',
  };

  beforeAll(async () => {
    upstream = await new FakeUpstream()
      .on(`POST ${DEPLOYMENT}/chat/completions`, (req, res) => {
        if (req.json().stream) {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          for (const chunk of fixtureChunks('azure-openai', 'chat')) res.write(chunk);
          res.end();
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(fixtureJson('azure-openai', 'chat')));
      })
      .on(`POST ${DEPLOYMENT}/completions`, { json: fixtureJson('azure-openai', 'completion') })
      .on('POST /openai/deployments/embed-small/embeddings', { json: fixtureJson('azure-openai', 'embeddings') })
      .on('POST /openai/deployments/dalle3/images/generations', { json: fixtureJson('azure-openai', 'image') })
      .on('POST /openai/deployments/tts-hd/audio/speech', { raw: Buffer.from('ID3-fake-mp3-bytes'), headers: { 'content-type': 'audio/mpeg' } })
      .on('GET /openai/models', { json: fixtureJson('azure-openai', 'models') })
      .on('GET /openai/files', { json: fixtureJson('azure-openai', 'files') })
      .on('POST /openai/batches', { json: fixtureJson('azure-openai', 'batch') })
      .on('GET /openai/fine_tuning/jobs', { json: fixtureJson('azure-openai', 'fine-tuning-jobs') })
      .start();
    gw = await startGateway({ providers: { 'azure-openai': { baseUrl: upstream.url } } });
    client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: KEY, defaultHeaders: headers, maxRetries: 0 });
  });
  afterAll(async () => {
    await gw?.close();
    await upstream?.stop();
  });

  it('sends chat to the deployment URL with api-version and the api-key header, and passes the answer through', async () => {
    const answer = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hello' }], temperature: 0.1 });
    expect(answer).toEqual(fixtureJson('azure-openai', 'chat'));
    const sent = upstream.received(`POST ${DEPLOYMENT}/chat/completions`).at(-1)!;
    expect(sent.url).toBe(`${DEPLOYMENT}/chat/completions?${VERSION}`);
    expect(sent.headers['api-key']).toBe(KEY);
    expect(sent.headers.authorization).toBeUndefined();
    expect(sent.headers['x-gateway-azure-resource-name']).toBeUndefined();
    expect(sent.json()).toEqual({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hello' }], temperature: 0.1 });
  });

  it('uses the api-version the caller names', async () => {
    await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hello' }] }, { headers: { 'x-gateway-azure-api-version': '2025-01-01-preview' } });
    expect(upstream.received(`POST ${DEPLOYMENT}/chat/completions`).at(-1)!.url).toBe(`${DEPLOYMENT}/chat/completions?api-version=2025-01-01-preview`);
  });

  it('relays streams, Azure prompt-filter chunk included, and the SDK reads them', async () => {
    const stream = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hello' }], stream: true });
    let text = '';
    let finish: string | null = null;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(text).toBe('Hello from Azure! How can I help?');
    expect(finish).toBe('stop');
    const raw = await request(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...headers, 'api-key': 'ignored', authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hello' }], stream: true }),
    });
    expect(await raw.body.text()).toBe(fixtureChunks('azure-openai', 'chat').join(''));
  });

  it('passes finish_reason content_filter through', async () => {
    upstream.on(`POST ${DEPLOYMENT}/chat/completions`, { json: fixtureJson('azure-openai', 'chat-filtered') });
    try {
      const answer = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Write a scene' }] });
      expect(answer.choices[0]!.finish_reason).toBe('content_filter');
      expect(answer.choices[0]!.message.content).toBe('The scene begins');
    } finally {
      upstream.on(`POST ${DEPLOYMENT}/chat/completions`, { json: fixtureJson('azure-openai', 'chat') });
    }
  });

  it('serves completions, embeddings, images and speech on their deployments', async () => {
    const completion = await client.completions.create({ model: 'gpt-35-turbo-instruct', prompt: 'This is', max_tokens: 7 });
    expect(completion.choices[0]!.text).toBe(' indeed a test of the system');
    expect(upstream.received(`POST ${DEPLOYMENT}/completions`).at(-1)!.url).toBe(`${DEPLOYMENT}/completions?${VERSION}`);

    const embeddings = await client.embeddings.create(
      { model: 'text-embedding-3-small', input: 'hi', encoding_format: 'float' },
      { headers: { 'x-gateway-azure-deployment-id': 'embed-small' } },
    );
    expect(embeddings.data[0]!.embedding).toEqual([0.0023064255, -0.009327292, 0.015797347]);
    expect(upstream.received('POST /openai/deployments/embed-small/embeddings').at(-1)!.url).toBe(`/openai/deployments/embed-small/embeddings?${VERSION}`);

    const image = await client.images.generate(
      { model: 'dall-e-3', prompt: 'A lighthouse at dawn', size: '1024x1024' },
      { headers: { 'x-gateway-azure-deployment-id': 'dalle3' } },
    );
    expect(image.data![0]!.revised_prompt).toBe('A watercolor painting of a lighthouse at dawn.');
    expect(upstream.received('POST /openai/deployments/dalle3/images/generations').at(-1)!.headers['api-key']).toBe(KEY);

    const speech = await client.audio.speech.create({ model: 'tts-1-hd', voice: 'alloy', input: 'Hello' }, { headers: { 'x-gateway-azure-deployment-id': 'tts-hd' } });
    expect(speech.headers.get('content-type')).toBe('audio/mpeg');
    expect(Buffer.from(await speech.arrayBuffer()).toString()).toBe('ID3-fake-mp3-bytes');
  });

  it('serves models, files, batches and fine-tuning at /openai/{path} without a deployment', async () => {
    const noDeployment = new OpenAI({
      baseURL: `${gw.url}/v1`,
      apiKey: KEY,
      defaultHeaders: { 'x-gateway-provider': 'azure-openai', 'x-gateway-azure-resource-name': 'acme-openai' },
      maxRetries: 0,
    });
    const models = await noDeployment.models.list();
    expect(models.data.map((m) => m.id)).toEqual(['gpt-4o-2024-08-06', 'text-embedding-3-small']);
    expect(upstream.received('GET /openai/models').at(-1)!.url).toBe(`/openai/models?${VERSION}`);

    const files = await noDeployment.files.list({ purpose: 'batch' });
    expect(files.data[0]!.id).toBe('file-9f3e2c1b0a');
    expect(upstream.received('GET /openai/files').at(-1)!.url).toBe(`/openai/files?${VERSION}&purpose=batch`);

    const batch = await noDeployment.batches.create({ input_file_id: 'file-9f3e2c1b0a', endpoint: '/v1/chat/completions', completion_window: '24h' });
    expect(batch.id).toBe('batch_6f1e2d3c');
    expect(upstream.received('POST /openai/batches').at(-1)!.url).toBe(`/openai/batches?${VERSION}`);

    const jobs = await noDeployment.fineTuning.jobs.list({ limit: 5 });
    expect(jobs.data).toEqual([]);
    expect(upstream.received('GET /openai/fine_tuning/jobs').at(-1)!.url).toBe(`/openai/fine_tuning/jobs?${VERSION}&limit=5`);
  });

  it('takes resource, deployment and api-version from a routing config target', async () => {
    upstream.on('POST /openai/deployments/routed-dep/chat/completions', { json: fixtureJson('azure-openai', 'chat') });
    const config = {
      strategy: { mode: 'single' },
      targets: [{ provider: 'azure-openai', api_key: KEY, azure_resource_name: 'acme-openai', azure_deployment_id: 'routed-dep', azure_api_version: '2024-06-01' }],
    };
    const res = await request(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'x-gateway-config': JSON.stringify(config), 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hello' }] }),
    });
    expect(res.statusCode).toBe(200);
    expect(await res.body.json()).toEqual(fixtureJson('azure-openai', 'chat'));
    const sent = upstream.received('POST /openai/deployments/routed-dep/chat/completions').at(-1)!;
    expect(sent.url).toBe('/openai/deployments/routed-dep/chat/completions?api-version=2024-06-01');
    expect(sent.headers['api-key']).toBe(KEY);
  });

  it('sends a Microsoft Entra ID token (a JWT) as a bearer token instead of api-key', async () => {
    const jwt = 'eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.eyJhdWQiOiJodHRwczovL2NvZ25pdGl2ZXNlcnZpY2VzLmF6dXJlLmNvbSJ9.c2lnbmF0dXJl';
    const entra = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: jwt, defaultHeaders: headers, maxRetries: 0 });
    await entra.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hello' }] });
    const sent = upstream.received(`POST ${DEPLOYMENT}/chat/completions`).at(-1)!;
    expect(sent.headers.authorization).toBe(`Bearer ${jwt}`);
    expect(sent.headers['api-key']).toBeUndefined();
  });

  it('answers 400 naming the missing deployment before calling Azure', async () => {
    const before = upstream.requests.length;
    const err = await client.chat.completions
      .create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hello' }] }, { headers: { 'x-gateway-azure-deployment-id': null } })
      .catch((e) => e);
    expect(err.status).toBe(400);
    expect(err.error).toMatchObject({ type: 'invalid_request_error', code: 'missing_required_parameter', param: 'x-gateway-azure-deployment-id' });
    expect(upstream.requests.length).toBe(before);
  });

  describe('errors', () => {
    const cases: Array<[string, string, number, number, Record<string, unknown>, Record<string, string>?]> = [
      ['a content filter refusal', 'content-filter-error', 400, 400, { type: 'provider_error', code: 'content_policy_violation' }],
      ['an unknown deployment', 'deployment-not-found', 404, 404, { type: 'provider_error', code: 'model_not_found' }],
      ['a bad key', 'unauthorized', 401, 401, { type: 'authentication_error', code: 'invalid_api_key' }],
      ['a rate limit', 'rate-limit', 429, 429, { type: 'rate_limit_error', code: 'rate_limit_exceeded' }, { 'retry-after': '6' }],
    ];
    for (const [what, fixture, upstreamStatus, status, error, extra] of cases) {
      it(`maps ${what} to ${status}`, async () => {
        upstream.on('POST /openai/deployments/broken/chat/completions', { status: upstreamStatus, json: fixtureJson('azure-openai', fixture), headers: extra ?? {} });
        const res = await request(`${gw.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { ...headers, 'x-gateway-azure-deployment-id': 'broken', 'x-gateway-api-key': KEY, 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hello' }] }),
        });
        const body: any = await res.body.json();
        expect(res.statusCode).toBe(status);
        expect(body.error).toMatchObject({ ...error, provider: 'azure-openai', message: fixtureJson('azure-openai', fixture).error.message });
        for (const [name, value] of Object.entries(extra ?? {})) expect(res.headers[name]).toBe(value);
        expect(JSON.stringify(body)).not.toContain(KEY);
      });
    }
  });
});

describe('azure-openai without a configured base URL', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startGateway({});
  });
  afterAll(async () => {
    await gw?.close();
  });

  const post = (headers: Record<string, string>) =>
    request(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'x-gateway-provider': 'azure-openai', 'x-gateway-api-key': KEY, 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hello' }] }),
    });

  it('answers 400 naming x-gateway-azure-resource-name when it is missing', async () => {
    const res = await post({ 'x-gateway-azure-deployment-id': 'gpt4o-prod' });
    const body: any = await res.body.json();
    expect(res.statusCode).toBe(400);
    expect(body.error).toMatchObject({ type: 'invalid_request_error', code: 'missing_required_parameter', param: 'x-gateway-azure-resource-name' });
  });

  it('answers 400 for a resource name that would change the host', async () => {
    const res = await post({ 'x-gateway-azure-resource-name': 'evil.example.com/x?', 'x-gateway-azure-deployment-id': 'gpt4o-prod' });
    expect(res.statusCode).toBe(400);
    expect(((await res.body.json()) as any).error.param).toBe('x-gateway-azure-resource-name');
  });

  it('builds https://{resource}.openai.azure.com/openai/deployments/{deployment}/{path}?api-version=...', async () => {
    const instance = azure.create({});
    const call = (operation: string, options: Record<string, unknown>, query = '') =>
      ({ operation, target: { provider: 'azure-openai', options }, body: {}, query: new URLSearchParams(query), params: {}, headers: {}, apiKey: KEY }) as unknown as ProviderCall;
    const chat = await instance.operations['chat.completions']!.request(call('chat.completions', { azure_resource_name: 'acme-openai', azure_deployment_id: 'gpt 4o' }), instance);
    expect(chat.url).toBe('https://acme-openai.openai.azure.com/openai/deployments/gpt%204o/chat/completions?api-version=2024-10-21');
    expect(chat.headers['api-key']).toBe(KEY);
    const files = await instance.operations['files.list']!.request(
      call('files.list', { azure_resource_name: 'acme-openai', azure_api_version: '2024-07-01-preview' }, 'after=file-1&api-version=ignored'),
      instance,
    );
    expect(files.url).toBe('https://acme-openai.openai.azure.com/openai/files?api-version=2024-07-01-preview&after=file-1');
  });
});
