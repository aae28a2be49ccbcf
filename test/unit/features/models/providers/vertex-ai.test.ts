import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import OpenAI from 'openai';
import { request } from 'undici';
import { exportPKCS8, exportSPKI, generateKeyPair, importSPKI, jwtVerify } from 'jose';
import type { ServerResponse } from 'node:http';
import { FakeUpstream, type ReceivedRequest } from '../../../../helpers/fake-upstream.js';
import { startGateway, type TestGateway } from '../../../../helpers/start-gateway.js';
import { fixtureBytes, fixtureJson } from '../../../../helpers/fixtures.js';
import { assembleChat, comparable, postStream } from '../../../../helpers/chat-stream.js';

const PROJECT = 'acme-prod';
const REGION = 'europe-west4';
const LOCATION = `/v1/projects/${PROJECT}/locations/${REGION}/publishers/google/models`;

/** Stream fixtures of Vertex use CRLF event boundaries, as the service does. */
function crlfChunks(name: string): string[] {
  return fixtureBytes('vertex-ai', `${name}.chunks.txt`)
    .toString('utf8')
    .split(/(?<=\r\n\r\n)/)
    .filter((c) => c.trim() !== '');
}

describe('vertex-ai through the gateway', () => {
  let upstream: FakeUpstream;
  let gw: TestGateway;
  let privatePem: string;
  let publicPem: string;
  let tokenUri: string;
  let exchanges: ReceivedRequest[] = [];
  let tokenReply: (req: ReceivedRequest, res: ServerResponse) => void | Promise<void>;

  const account = (email = 'gateway@acme-prod.iam.gserviceaccount.com', extra: Record<string, unknown> = {}) => ({
    type: 'service_account',
    project_id: 'acme-from-key',
    private_key_id: 'f3a1c0ffee',
    private_key: privatePem,
    client_email: email,
    client_id: '1234567890',
    token_uri: tokenUri,
    ...extra,
  });
  const vertexHeaders = (sa: unknown, more: Record<string, string> = {}) => ({
    'x-gateway-provider': 'vertex-ai',
    'x-gateway-vertex-project-id': PROJECT,
    'x-gateway-vertex-region': REGION,
    'x-gateway-vertex-service-account-json': typeof sa === 'string' ? sa : JSON.stringify(sa),
    ...more,
  });
  const chat = (headers: Record<string, string>, body: Record<string, unknown> = {}) =>
    request(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gemini-2.0-flash', messages: [{ role: 'user', content: 'Bonjour' }], ...body }),
    });

  beforeAll(async () => {
    const keys = await generateKeyPair('RS256', { extractable: true });
    privatePem = await exportPKCS8(keys.privateKey);
    publicPem = await exportSPKI(keys.publicKey);
    upstream = await new FakeUpstream().start();
    tokenUri = `${upstream.url}/token`;
    let issued = 0;
    tokenReply = (req, res) => {
      issued += 1;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ...fixtureJson('vertex-ai', 'token'), access_token: `ya29.fake-token-${issued}` }));
    };
    upstream.on('POST /token', (req, res) => {
      exchanges.push(req);
      return tokenReply(req, res);
    });
    upstream.on(`POST ${LOCATION}/gemini-2.0-flash:generateContent`, { json: fixtureJson('vertex-ai', 'chat') });
    upstream.on(`POST ${LOCATION}/gemini-2.0-flash:streamGenerateContent`, { chunks: crlfChunks('chat') });
    upstream.on(`POST ${LOCATION}/gemini-2.0-flash-tools:generateContent`, { json: fixtureJson('vertex-ai', 'tools') });
    upstream.on(`POST ${LOCATION}/gemini-2.0-flash-tools:streamGenerateContent`, { chunks: crlfChunks('tools') });
    gw = await startGateway({ providers: { 'vertex-ai': { baseUrl: upstream.url, tokenHosts: [new URL(upstream.url).host] } } });
  });
  afterEach(() => {
    vi.useRealTimers();
  });
  afterAll(async () => {
    await gw?.close();
    await upstream?.stop();
  });

  it('signs the JWT grant itself, exchanges it at token_uri and calls generateContent with the token', async () => {
    exchanges = [];
    const res = await chat(vertexHeaders(account()));
    const body: any = await res.body.json();
    expect(res.statusCode).toBe(200);
    expect(body.choices[0].message.content).toBe('Bonjour ! Comment puis-je vous aider ?');
    expect(body.id).toBe('chatcmpl-E1TpZ8u9E6eTnvgP5vfJ0AE');
    expect(body.created).toBe(Math.floor(Date.parse('2025-03-30T14:21:07.318475Z') / 1000));
    expect(body.model).toBe('gemini-2.0-flash-001');
    expect(body.usage).toEqual({ prompt_tokens: 11, completion_tokens: 9, total_tokens: 20 });

    expect(exchanges).toHaveLength(1);
    const exchange = exchanges[0]!;
    expect(exchange.headers['content-type']).toBe('application/x-www-form-urlencoded');
    const form = new URLSearchParams(exchange.body.toString('utf8'));
    expect(form.get('grant_type')).toBe('urn:ietf:params:oauth:grant-type:jwt-bearer');
    const assertion = form.get('assertion')!;
    const { payload, protectedHeader } = await jwtVerify(assertion, await importSPKI(publicPem, 'RS256'), {
      issuer: 'gateway@acme-prod.iam.gserviceaccount.com',
      audience: tokenUri,
    });
    expect(protectedHeader).toEqual({ alg: 'RS256', typ: 'JWT', kid: 'f3a1c0ffee' });
    expect(payload.scope).toBe('https://www.googleapis.com/auth/cloud-platform');
    expect(payload.exp! - payload.iat!).toBe(3600);
    expect(Math.abs(payload.iat! - Date.now() / 1000)).toBeLessThan(60);

    const sent = upstream.received(`POST ${LOCATION}/gemini-2.0-flash:generateContent`).at(-1)!;
    expect(sent.url).toBe(`${LOCATION}/gemini-2.0-flash:generateContent`);
    expect(sent.headers.authorization).toMatch(/^Bearer ya29\.fake-token-\d+$/);
    expect(sent.headers['x-gateway-vertex-service-account-json']).toBeUndefined();
    expect(sent.json()).toEqual({ contents: [{ role: 'user', parts: [{ text: 'Bonjour' }] }] });
  });

  it('reuses the cached token for the same service account, and renews it shortly before it expires', async () => {
    const sa = account('cache@acme-prod.iam.gserviceaccount.com');
    exchanges = [];
    await (await chat(vertexHeaders(sa))).body.json();
    await (await chat(vertexHeaders(sa))).body.json();
    expect(exchanges).toHaveLength(1);
    const tokens = upstream
      .received(`POST ${LOCATION}/gemini-2.0-flash:generateContent`)
      .slice(-2)
      .map((r) => r.headers.authorization);
    expect(tokens[0]).toBe(tokens[1]);

    // 58 minutes later the token (valid 3599 s) is still used; at 56 minutes past its end it is renewed
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 50 * 60 * 1000);
    await (await chat(vertexHeaders(sa))).body.json();
    expect(exchanges).toHaveLength(1);
    vi.setSystemTime(Date.now() + 6 * 60 * 1000);
    await (await chat(vertexHeaders(sa))).body.json();
    expect(exchanges).toHaveLength(2);
    const renewed = upstream.received(`POST ${LOCATION}/gemini-2.0-flash:generateContent`).at(-1)!.headers.authorization;
    expect(renewed).not.toBe(tokens[0]);
  });

  it('shares one exchange among concurrent requests for a new service account', async () => {
    const sa = account('burst@acme-prod.iam.gserviceaccount.com');
    exchanges = [];
    const answers = await Promise.all(Array.from({ length: 6 }, () => chat(vertexHeaders(sa)).then((r) => r.body.json() as Promise<any>)));
    expect(answers.every((a) => a.object === 'chat.completion')).toBe(true);
    expect(exchanges).toHaveLength(1);
  });

  it('accepts the service account as base64 of its JSON, and takes the project from the key when no header names one', async () => {
    exchanges = [];
    upstream.on(`POST /v1/projects/acme-from-key/locations/${REGION}/publishers/google/models/gemini-2.0-flash:generateContent`, {
      json: fixtureJson('vertex-ai', 'chat'),
    });
    const sa = Buffer.from(JSON.stringify(account('b64@acme-prod.iam.gserviceaccount.com'))).toString('base64');
    const headers = vertexHeaders(sa);
    delete (headers as Record<string, string>)['x-gateway-vertex-project-id'];
    const res = await chat(headers);
    expect(res.statusCode).toBe(200);
    await res.body.json();
    expect(exchanges).toHaveLength(1);
    expect(upstream.received(`POST /v1/projects/acme-from-key/locations/${REGION}/publishers/google/models/gemini-2.0-flash:generateContent`)).toHaveLength(1);
  });

  it('takes project, region and the service account (as a JSON object) from a routing config target', async () => {
    exchanges = [];
    const config = {
      strategy: { mode: 'single' },
      targets: [{ provider: 'vertex-ai', vertex_project_id: PROJECT, vertex_region: REGION, vertex_service_account_json: account('routed@acme-prod.iam.gserviceaccount.com') }],
    };
    const res = await chat({ 'x-gateway-config': JSON.stringify(config) });
    const body: any = await res.body.json();
    expect(res.statusCode).toBe(200);
    expect(body.choices[0].message.content).toBe('Bonjour ! Comment puis-je vous aider ?');
    expect(res.headers['x-gateway-provider']).toBe('vertex-ai');
    expect(exchanges).toHaveLength(1);
    const form = new URLSearchParams(exchanges[0]!.body.toString('utf8'));
    const { payload } = await jwtVerify(form.get('assertion')!, await importSPKI(publicPem, 'RS256'), { audience: tokenUri });
    expect(payload.iss).toBe('routed@acme-prod.iam.gserviceaccount.com');
  });

  it('uses an access token given as the provider key when no service account is sent', async () => {
    exchanges = [];
    const client = new OpenAI({
      baseURL: `${gw.url}/v1`,
      apiKey: 'ya29.caller-supplied-token',
      defaultHeaders: { 'x-gateway-provider': 'vertex-ai', 'x-gateway-vertex-project-id': PROJECT, 'x-gateway-vertex-region': REGION },
      maxRetries: 0,
    });
    const answer = await client.chat.completions.create({ model: 'gemini-2.0-flash', messages: [{ role: 'user', content: 'Bonjour' }] });
    expect(answer.choices[0]!.message.content).toBe('Bonjour ! Comment puis-je vous aider ?');
    expect(exchanges).toHaveLength(0);
    expect(upstream.received(`POST ${LOCATION}/gemini-2.0-flash:generateContent`).at(-1)!.headers.authorization).toBe('Bearer ya29.caller-supplied-token');
  });

  it('streams through the OpenAI SDK, tool calls included, reassembling to the non-streamed answers', async () => {
    const client = new OpenAI({
      baseURL: `${gw.url}/v1`,
      apiKey: 'unused-when-a-service-account-is-sent',
      defaultHeaders: vertexHeaders(account()),
      maxRetries: 0,
    });
    const plain = { model: 'gemini-2.0-flash', messages: [{ role: 'user' as const, content: 'Bonjour' }] };
    const whole = await client.chat.completions.create(plain);
    const stream = await client.chat.completions.create({ ...plain, stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).toBe(whole.choices[0]!.message.content);
    // the service account wins over the SDK's placeholder key
    expect(upstream.received(`POST ${LOCATION}/gemini-2.0-flash:streamGenerateContent`).at(-1)!.headers.authorization).toMatch(/^Bearer ya29\.fake-token-\d+$/);
    expect(upstream.received(`POST ${LOCATION}/gemini-2.0-flash:streamGenerateContent`).at(-1)!.url).toBe(`${LOCATION}/gemini-2.0-flash:streamGenerateContent?alt=sse`);

    const tools = {
      model: 'gemini-2.0-flash-tools',
      messages: [{ role: 'user' as const, content: 'Status of A-1001 and A-1002?' }],
      tools: [{ type: 'function' as const, function: { name: 'lookup_order', parameters: { type: 'object', properties: { order_id: { type: 'string' } } } } }],
    };
    const toolAnswer = await client.chat.completions.create(tools);
    expect(toolAnswer.choices[0]!.message.tool_calls!.map((c: any) => [c.id, c.function.name, c.function.arguments])).toEqual([
      ['call_0', 'lookup_order', '{"order_id":"A-1001"}'],
      ['call_1', 'lookup_order', '{"order_id":"A-1002"}'],
    ]);
    const raw = await postStream(
      `${gw.url}/v1/chat/completions`,
      { ...tools, stream: true, stream_options: { include_usage: true } },
      {
        ...vertexHeaders(account()),
      },
    );
    expect(raw.done).toBe(true);
    expect(assembleChat(raw.events)).toEqual(comparable(toolAnswer));
  });

  it('embeds through :predict and lists publisher models', async () => {
    upstream.on(`POST ${LOCATION}/text-embedding-005:predict`, { json: fixtureJson('vertex-ai', 'predict') });
    upstream.on('GET /v1beta1/publishers/google/models', { json: fixtureJson('vertex-ai', 'publisher-models') });
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: 'x', defaultHeaders: vertexHeaders(account()), maxRetries: 0 });
    const answer = await client.embeddings.create({ model: 'text-embedding-005', input: ['first text', 'second text'], dimensions: 3, encoding_format: 'float' });
    expect(upstream.received(`POST ${LOCATION}/text-embedding-005:predict`).at(-1)!.json()).toEqual({
      instances: [{ content: 'first text' }, { content: 'second text' }],
      parameters: { outputDimensionality: 3 },
    });
    expect(answer).toEqual({
      object: 'list',
      data: [
        { object: 'embedding', index: 0, embedding: [0.0213, -0.0412, 0.0077] },
        { object: 'embedding', index: 1, embedding: [-0.0031, 0.0189, 0.0502] },
      ],
      model: 'text-embedding-005',
      usage: { prompt_tokens: 8, total_tokens: 8 },
    });
    const models = await client.models.list();
    expect(models.data.map((m) => m.id)).toEqual(['gemini-2.0-flash-001', 'text-embedding-005']);
    expect(upstream.received('GET /v1beta1/publishers/google/models').at(-1)!.headers.authorization).toMatch(/^Bearer ya29\./);
  });

  describe('credential and parameter errors', () => {
    it('answers 401 when neither a service account nor a token is sent', async () => {
      const res = await request(`${gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'x-gateway-provider': 'vertex-ai', 'x-gateway-vertex-project-id': PROJECT, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gemini-2.0-flash', messages: [{ role: 'user', content: 'Hi' }] }),
      });
      const body: any = await res.body.json();
      expect(res.statusCode).toBe(401);
      expect(body.error).toMatchObject({ type: 'authentication_error', code: 'invalid_api_key', provider: 'vertex-ai' });
    });

    it('answers 400 naming the missing project', async () => {
      const headers = vertexHeaders(account('noproject@acme-prod.iam.gserviceaccount.com', { project_id: undefined }));
      delete (headers as Record<string, string>)['x-gateway-vertex-project-id'];
      const res = await chat(headers);
      const body: any = await res.body.json();
      expect(res.statusCode).toBe(400);
      expect(body.error).toMatchObject({ type: 'invalid_request_error', param: 'x-gateway-vertex-project-id' });
    });

    it('answers 400 for a service account that is not a key, without echoing it', async () => {
      const res = await chat(vertexHeaders('not-a-key-at-all-secret-material'));
      const body: any = await res.body.json();
      expect(res.statusCode).toBe(400);
      expect(body.error).toMatchObject({ param: 'x-gateway-vertex-service-account-json' });
      expect(JSON.stringify(body)).not.toContain('secret-material');
    });

    it('refuses a token_uri outside Google and the configured token hosts', async () => {
      const res = await chat(vertexHeaders(account('evil@acme-prod.iam.gserviceaccount.com', { token_uri: 'http://169.254.169.254/token' })));
      const body: any = await res.body.json();
      expect(res.statusCode).toBe(400);
      expect(body.error).toMatchObject({ param: 'x-gateway-vertex-service-account-json' });
      expect(body.error.message).toContain('169.254.169.254');
    });

    it('answers 400 for a region that is not one', async () => {
      const res = await chat(vertexHeaders(account(), { 'x-gateway-vertex-region': 'evil.com/x' }));
      expect(res.statusCode).toBe(400);
      expect(((await res.body.json()) as any).error.param).toBe('x-gateway-vertex-region');
    });

    it('maps a refused grant to 401 and does not cache the failure', async () => {
      const sa = account('refused@acme-prod.iam.gserviceaccount.com');
      exchanges = [];
      const original = tokenReply;
      tokenReply = (_req, res) => {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify(fixtureJson('vertex-ai', 'token-invalid-grant')));
      };
      try {
        const res = await chat(vertexHeaders(sa, { 'x-gateway-debug': 'true' }));
        const body: any = await res.body.json();
        expect(res.statusCode).toBe(401);
        expect(body.error).toMatchObject({ type: 'authentication_error', code: 'invalid_api_key', provider: 'vertex-ai' });
        expect(body.error.message).toContain('invalid_grant: Invalid JWT Signature.');
        expect(JSON.stringify(body)).not.toContain('PRIVATE KEY');
      } finally {
        tokenReply = original;
      }
      const again = await chat(vertexHeaders(sa));
      expect(again.statusCode).toBe(200);
      await again.body.json();
      expect(exchanges).toHaveLength(2);
    });

    it('maps Vertex API errors: 401 UNAUTHENTICATED, 404 unknown model, 429 RESOURCE_EXHAUSTED', async () => {
      const cases: Array<[string, number, string, number, string]> = [
        ['error-unauthenticated', 401, 'm-auth', 401, 'invalid_api_key'],
        ['error-not-found', 404, 'm-missing', 404, 'model_not_found'],
        ['error-quota', 429, 'm-quota', 429, 'rate_limit_exceeded'],
      ];
      for (const [fixture, upstreamStatus, model, status, code] of cases) {
        upstream.on(`POST ${LOCATION}/${model}:generateContent`, {
          status: upstreamStatus,
          json: fixtureJson('vertex-ai', fixture),
          headers: upstreamStatus === 429 ? { 'retry-after': '12' } : {},
        });
        const res = await chat(vertexHeaders(account()), { model });
        const body: any = await res.body.json();
        expect(res.statusCode).toBe(status);
        expect(body.error).toMatchObject({ code, provider: 'vertex-ai', message: fixtureJson('vertex-ai', fixture).error.message });
        if (status === 429) expect(res.headers['retry-after']).toBe('12');
      }
    });
  });
});
