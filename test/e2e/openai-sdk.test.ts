import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { FakeUpstream } from '../helpers/fake-upstream.js';
import { startGateway, type TestGateway } from '../helpers/start-gateway.js';
import { fixtureChunks, fixtureJson } from '../helpers/fixtures.js';

describe('the official openai SDK through the gateway (openai provider)', () => {
  let upstream: FakeUpstream;
  let gw: TestGateway;
  let client: OpenAI;

  beforeAll(async () => {
    upstream = await new FakeUpstream()
      .on('POST /v1/chat/completions', (req, res) => {
        const body = req.json();
        if (body.stream) {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          for (const chunk of fixtureChunks('openai', 'chat')) res.write(chunk);
          res.end();
        } else {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify(fixtureJson('openai', 'chat')));
        }
      })
      .on('POST /v1/completions', { json: fixtureJson('openai', 'completion') })
      .on('POST /v1/embeddings', { json: fixtureJson('openai', 'embeddings') })
      .on('GET /v1/models', { json: fixtureJson('openai', 'models') })
      .start();
    gw = await startGateway({ providers: { openai: { baseUrl: `${upstream.url}/v1` } } });
    client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: 'sk-test-key-123456789', defaultHeaders: { 'x-gateway-provider': 'openai' } });
  });
  afterAll(async () => {
    await gw?.close();
    await upstream?.stop();
  });

  it('answers a chat completion and sends the request upstream as the client wrote it', async () => {
    const answer = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }], temperature: 0.2 });
    expect(answer).toEqual(fixtureJson('openai', 'chat'));
    const sent = upstream.received('POST /v1/chat/completions').at(-1)!;
    expect(sent.json()).toEqual({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }], temperature: 0.2 });
    expect(sent.headers.authorization).toBe('Bearer sk-test-key-123456789');
    expect(sent.headers['x-gateway-provider']).toBeUndefined();
  });

  it('relays a streamed chat completion chunk by chunk, usage included', async () => {
    const stream = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Hi' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let finish: string | null = null;
    let usage: unknown;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe('Hello! How can I help you today?');
    expect(finish).toBe('stop');
    expect(usage).toEqual({ prompt_tokens: 9, completion_tokens: 9, total_tokens: 18 });
  });

  it('answers a legacy completion', async () => {
    const answer = await client.completions.create({ model: 'gpt-3.5-turbo-instruct', prompt: 'Say this is a test', max_tokens: 7 });
    expect(answer.choices[0]!.text).toBe('\n\nThis is indeed a test');
    expect(answer.object).toBe('text_completion');
  });

  it('answers embeddings', async () => {
    const answer = await client.embeddings.create({ model: 'text-embedding-3-small', input: ['a', 'b'], encoding_format: 'float' });
    expect(answer.data).toHaveLength(2);
    expect(answer.data[1]!.index).toBe(1);
    expect(answer.data[0]!.embedding[0]).toBeCloseTo(0.0023064255);
  });

  it('lists models', async () => {
    const page = await client.models.list();
    expect(page.data.map((m) => m.id)).toEqual(['gpt-4o-mini', 'text-embedding-3-small']);
  });

  it('surfaces gateway validation errors through the SDK as 400s with the contract body', async () => {
    const err = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }], temperature: 3 }).catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect(err.status).toBe(400);
    expect(err.error).toMatchObject({ type: 'invalid_request_error', code: 'missing_required_parameter', param: 'temperature' });
  });
});
