import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { FakeUpstream } from '../helpers/fake-upstream.js';
import { startGateway, type TestGateway } from '../helpers/start-gateway.js';
import { fixtureJson } from '../helpers/fixtures.js';
import { encodeEvent, encodeEvents, slices } from '../helpers/aws-eventstream-encoder.js';
import { verifySigV4 } from '../helpers/sigv4-verify.js';

const AWS = {
  'x-gateway-aws-access-key-id': 'AKIAIOSFODNN7EXAMPLE',
  'x-gateway-aws-secret-access-key': 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
};
const TITAN = 'amazon.titan-embed-text-v1';
const COHERE = 'cohere.embed-multilingual-v3';
const CLAUDE = 'anthropic.claude-3-haiku-20240307-v1:0';

describe('bedrock through the gateway', () => {
  let fake: FakeUpstream;
  let gw: TestGateway;
  let client: OpenAI;
  const titan = fixtureJson('bedrock', 'titan-embeddings') as Record<string, any>;

  beforeAll(async () => {
    fake = await new FakeUpstream().start();
    gw = await startGateway({ providers: { bedrock: { baseUrl: fake.url, region: 'us-west-2' } } });
    client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: 'unused', defaultHeaders: { 'x-gateway-provider': 'bedrock', ...AWS }, maxRetries: 0 });
  });
  afterAll(async () => {
    await gw?.close();
    await fake?.stop();
  });

  it('answers 401 invalid_api_key naming bedrock when no AWS credentials come with the request', async () => {
    const bare = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: 'some-key', defaultHeaders: { 'x-gateway-provider': 'bedrock' }, maxRetries: 0 });
    const before = fake.requests.length;
    const err: any = await bare.chat.completions.create({ model: CLAUDE, messages: [{ role: 'user', content: 'Hi' }] }).catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(err.error).toMatchObject({ type: 'authentication_error', code: 'invalid_api_key', provider: 'bedrock' });
    expect(err.error.message).toMatch(/bedrock/);
    expect(fake.requests.length).toBe(before);
  });

  it('signs with the providers.bedrock.region when the request names no region', async () => {
    fake.on(`POST /model/${encodeURIComponent(CLAUDE)}/converse`, { json: fixtureJson('bedrock', 'completion') });
    const answer = await client.chat.completions.create({ model: CLAUDE, messages: [{ role: 'user', content: 'Hi' }] });
    expect(answer.choices[0]!.message.content).toBe('Hello there!');
    const check = verifySigV4(fake.requests.at(-1)!, AWS['x-gateway-aws-secret-access-key']);
    expect(check).toMatchObject({ valid: true, region: 'us-west-2', service: 'bedrock' });
    expect(fake.requests.at(-1)!.headers['x-amz-security-token']).toBeUndefined();
  });

  it('embeds with Titan through one InvokeModel call per input, answers in input order with summed usage', async () => {
    const texts = ['second text', 'first text', 'second text'];
    fake.on(`POST /model/${TITAN}/invoke`, (req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(titan[req.json().inputText]));
    });
    const before = fake.received(`POST /model/${TITAN}/invoke`).length;
    const answer = await client.embeddings.create({ model: TITAN, input: texts, encoding_format: 'float' });
    const calls = fake.received(`POST /model/${TITAN}/invoke`).slice(before);
    expect(calls).toHaveLength(3);
    expect(calls.map((c) => c.json().inputText).sort()).toEqual([...texts].sort());
    for (const c of calls) expect(verifySigV4(c, AWS['x-gateway-aws-secret-access-key']).valid).toBe(true);
    expect(answer.data.map((d) => d.embedding)).toEqual(texts.map((t) => titan[t].embedding));
    expect(answer.usage).toEqual({ prompt_tokens: 9, total_tokens: 9 });
  });

  it('fails the whole Titan request with the mapped error when one call is throttled', async () => {
    fake.on(`POST /model/${TITAN}/invoke`, (req, res) => {
      if (req.json().inputText === 'second text') {
        res.writeHead(429, { 'content-type': 'application/json', 'x-amzn-errortype': 'ThrottlingException' });
        res.end(JSON.stringify({ message: 'Too many requests, please wait before trying again.' }));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(titan[req.json().inputText]));
    });
    const err: any = await client.embeddings.create({ model: TITAN, input: ['first text', 'second text'], encoding_format: 'float' }).catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    expect(err.error).toMatchObject({ code: 'rate_limit_exceeded', provider: 'bedrock' });
    expect(err.headers.get('retry-after')).toBe('1');
  });

  it('embeds with Cohere models through one call with texts and the request input_type', async () => {
    fake.on(`POST /model/${COHERE}/invoke`, { json: fixtureJson('bedrock', 'cohere-embeddings') });
    const answer = await client.embeddings.create({ model: COHERE, input: ['first text', 'second text'], encoding_format: 'float', input_type: 'search_query' } as any);
    expect(fake.received(`POST /model/${COHERE}/invoke`).at(-1)!.json()).toEqual({ texts: ['first text', 'second text'], input_type: 'search_query' });
    expect(answer.data.map((d) => d.embedding)).toEqual(fixtureJson('bedrock', 'cohere-embeddings').embeddings);
  });

  it('refuses embedding models it cannot address with a 400 naming the families it serves', async () => {
    const err: any = await client.embeddings.create({ model: 'mistral.mistral-large-2402-v1:0', input: 'x' }).catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect(err.error.message).toMatch(/Amazon Titan .* and Cohere/);
  });

  it('ends a stream whose event-stream bytes are corrupt with an error event and no [DONE]', async () => {
    const good = encodeEvents(fixtureJson('bedrock', 'text.events').slice(0, 3));
    const bad = Buffer.from(encodeEvent('contentBlockDelta', { contentBlockIndex: 0, delta: { text: ' square' } }));
    bad[bad.length - 6] ^= 0xff;
    fake.on(`POST /model/${encodeURIComponent(CLAUDE)}/converse-stream`, (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream' });
      for (const piece of slices(Buffer.concat([good, bad]), 9)) res.write(piece);
      res.end();
    });
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-gateway-provider': 'bedrock', ...AWS },
      body: JSON.stringify({ model: CLAUDE, messages: [{ role: 'user', content: 'Hi' }], stream: true }),
    });
    const events = (await res.text()).split('\n\n').filter(Boolean);
    expect(events.at(-1)).not.toBe('data: [DONE]');
    const last = JSON.parse(events.at(-1)!.slice(6));
    expect(last).toMatchObject({ status: 'failure', error: { type: 'provider_error', code: 'provider_error' } });
    expect(last.error.message).toMatch(/checksum/);
    const text = events
      .slice(0, -1)
      .map((e) => JSON.parse(e.slice(6)).choices[0]?.delta?.content ?? '')
      .join('');
    expect(text).toBe('A small red square on a white');
  });
});
