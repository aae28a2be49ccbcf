import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request as httpRequest } from 'node:http';
import OpenAI from 'openai';
import { FakeUpstream, sseChunks } from '../helpers/fake-upstream.js';
import { fixtureJson } from '../helpers/fixtures.js';
import { startGateway, type TestGateway } from '../helpers/start-gateway.js';
import { closedPort } from '../helpers/closed-port.js';
import { PROVIDER_ROUTES } from '../../src/contract/routes.js';

/**
 * One error shape everywhere: every failure a caller can meet, from the HTTP edge, the
 * pipeline's checks and the upstream, answers the contract's body with the catalogue's status.
 */
const KEY = 'sk-errors-test-key-000111';
const CHAT = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] };

/** The fake OpenAI answers according to the model named in the request. */
function openAIErrors(model: string, key: string): { status: number; body: unknown; headers?: Record<string, string> } | undefined {
  const error = (message: string, type: string, code: string | null, param: string | null = null) => ({ error: { message, type, code, param } });
  switch (model) {
    case 'bad-key':
      return {
        status: 401,
        body: error(`Incorrect API key provided: ${key}. You can find your API key at https://platform.openai.com/account/api-keys.`, 'invalid_request_error', 'invalid_api_key'),
      };
    case 'forbidden':
      return { status: 403, body: error('You are not allowed to sample from this model', 'invalid_request_error', 'model_not_allowed') };
    case 'no-such-model':
      return { status: 404, body: error('The model `no-such-model` does not exist or you do not have access to it.', 'invalid_request_error', 'model_not_found') };
    case 'busy':
      return { status: 429, body: error('Rate limit reached for requests', 'requests', 'rate_limit_exceeded'), headers: { 'retry-after': '7' } };
    case 'broken':
      return { status: 500, body: error('The server had an error while processing your request.', 'server_error', null) };
    case 'down':
      return { status: 503, body: error('The engine is currently overloaded.', 'server_error', null) };
    case 'unsafe':
      return { status: 400, body: error('Your request was rejected as a result of our safety system.', 'invalid_request_error', 'content_policy_violation') };
    case 'bad-param':
      return { status: 400, body: error("Invalid value for 'logit_bias'.", 'invalid_request_error', null, 'logit_bias') };
    case 'echo':
      // A misbehaving upstream that repeats the caller's credential everywhere it can.
      return {
        status: 500,
        body: { error: { message: `upstream failure for key ${key}`, type: 'server_error', code: null }, echoed_authorization: `Bearer ${key}` },
        headers: { 'x-echo-key': key, 'set-cookie': `session=${key}` },
      };
    default:
      return undefined;
  }
}

describe('one error shape everywhere', () => {
  let upstream: FakeUpstream;
  let gw: TestGateway;

  beforeAll(async () => {
    upstream = await new FakeUpstream()
      .on('POST /v1/chat/completions', (req, res) => {
        const body = req.json();
        const auth = String(req.headers.authorization ?? '').replace(/^Bearer /, '');
        if (body.stream) {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          const chunk = (content: string) => ({
            id: 'c1',
            object: 'chat.completion.chunk',
            created: 1,
            model: body.model,
            choices: [{ index: 0, delta: { content }, finish_reason: null }],
          });
          for (const text of sseChunks([chunk('Hel'), chunk('lo')], false)) res.write(text);
          // "cut": the connection drops mid-answer; "short": the stream ends without [DONE].
          if (body.model === 'cut') setTimeout(() => res.socket?.destroy(), 50);
          else res.end();
          return;
        }
        const failure = openAIErrors(body.model, auth);
        if (failure) {
          res.writeHead(failure.status, { 'content-type': 'application/json', ...failure.headers });
          res.end(JSON.stringify(failure.body));
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(fixtureJson('openai', 'chat')));
      })
      .on('GET /v1/models', { json: fixtureJson('openai', 'models') })
      .start();
    gw = await startGateway({ providers: { openai: { baseUrl: `${upstream.url}/v1` } } });
  });
  afterAll(async () => {
    await gw?.close();
    await upstream?.stop();
  });

  const send = (path: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}) =>
    fetch(`${gw.url}${path}`, { method: init.method ?? 'POST', headers: { 'content-type': 'application/json', ...init.headers }, body: init.body });
  const chat = (body: unknown, headers: Record<string, string> = {}) =>
    send('/v1/chat/completions', { headers: { 'x-gateway-provider': 'openai', 'x-gateway-api-key': KEY, ...headers }, body: JSON.stringify(body) });

  async function expectError(res: Response, status: number, error: Record<string, unknown>) {
    const body: any = await res.json();
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('x-gateway-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(Number(res.headers.get('content-length'))).toBe(Buffer.byteLength(JSON.stringify(body)));
    expect(Object.keys(body).sort()).toEqual(['error', 'message', 'status']);
    expect(body.status).toBe('failure');
    expect(body.error).toMatchObject({ param: null, provider: null, ...error, message: body.message });
    expect(Object.keys(body.error).sort()).toEqual(['code', 'message', 'param', 'provider', 'type']);
    return body;
  }

  describe('the request itself', () => {
    it('malformed JSON is a 400 naming the body', async () => {
      await expectError(await send('/v1/chat/completions', { headers: { 'x-gateway-provider': 'openai', 'x-gateway-api-key': KEY }, body: '{"model": "gpt-4o-mini",' }), 400, {
        type: 'invalid_request_error',
        code: 'missing_required_parameter',
        param: 'body',
      });
    });

    it.each([['[1, 2]'], ['"text"'], ['null'], ['42'], ['']])('a body that is not a JSON object (%s) is a 400 naming the body', async (text) => {
      await expectError(await send('/v1/embeddings', { headers: { 'x-gateway-provider': 'openai', 'x-gateway-api-key': KEY }, body: text }), 400, {
        type: 'invalid_request_error',
        code: 'missing_required_parameter',
        param: 'body',
      });
    });

    it.each([
      ['POST', '/v1/nope'],
      ['GET', '/v1/nope'],
      ['GET', '/v1/chat/completions'],
      ['DELETE', '/v1/models'],
      ['PUT', '/v1/files/file-1'],
      ['GET', '/'],
    ])('an unknown route (%s %s) is a 404 not_found', async (method, path) => {
      const body = await expectError(await send(path, { method, headers: { 'x-gateway-provider': 'openai' } }), 404, {
        type: 'invalid_request_error',
        code: 'not_found',
      });
      expect(body.message).toBe(`No route ${method} ${path}.`);
    });

    it('no provider header is a 400 on x-gateway-provider, checked before the body', async () => {
      const body = await expectError(await send('/v1/chat/completions', { headers: { 'x-gateway-api-key': KEY }, body: '{broken' }), 400, {
        type: 'invalid_request_error',
        code: 'missing_required_parameter',
        param: 'x-gateway-provider',
      });
      expect(body.message).toMatch(/x-gateway-provider/);
      expect(upstream.requests).toHaveLength(0);
    });

    it.each(PROVIDER_ROUTES.map((r) => [r.method, r.path.replace(/:(\w+)/g, 'id-$1')]))(
      'every contract route is served: %s %s without a provider is that 400',
      async (method, path) => {
        await expectError(await send(path, { method, body: method === 'POST' ? '{}' : undefined }), 400, {
          type: 'invalid_request_error',
          code: 'missing_required_parameter',
          param: 'x-gateway-provider',
        });
      },
    );

    it('an unknown provider is a 400 on x-gateway-provider', async () => {
      const body = await expectError(await chat(CHAT, { 'x-gateway-provider': 'skynet' }), 400, {
        type: 'invalid_request_error',
        code: 'missing_required_parameter',
        param: 'x-gateway-provider',
      });
      expect(body.message).toContain('Unknown provider "skynet"');
      expect(body.message).toContain('openai');
    });

    it('a provider with no key at all is a 401 invalid_api_key', async () => {
      await expectError(await send('/v1/chat/completions', { headers: { 'x-gateway-provider': 'openai' }, body: JSON.stringify(CHAT) }), 401, {
        type: 'authentication_error',
        code: 'invalid_api_key',
        provider: 'openai',
      });
    });

    it('the provider key may come as Authorization: Bearer (how the openai SDK sends it)', async () => {
      const res = await send('/v1/chat/completions', { headers: { 'x-gateway-provider': 'openai', authorization: `Bearer ${KEY}` }, body: JSON.stringify(CHAT) });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual(fixtureJson('openai', 'chat'));
      expect(upstream.received('POST /v1/chat/completions').at(-1)!.headers.authorization).toBe(`Bearer ${KEY}`);
    });

    it('x-gateway-api-key wins over Authorization', async () => {
      const res = await send('/v1/chat/completions', {
        headers: { 'x-gateway-provider': 'openai', 'x-gateway-api-key': KEY, authorization: 'Bearer sk-other-key-999999' },
        body: JSON.stringify(CHAT),
      });
      expect(res.status).toBe(200);
      await res.arrayBuffer();
      expect(upstream.received('POST /v1/chat/completions').at(-1)!.headers.authorization).toBe(`Bearer ${KEY}`);
    });
  });

  describe('upstream failures (an OpenAI-shaped upstream)', () => {
    it.each([
      ['bad-key', 401, 'authentication_error', 'invalid_api_key'],
      ['forbidden', 401, 'authentication_error', 'invalid_api_key'],
      ['no-such-model', 404, 'provider_error', 'model_not_found'],
      ['broken', 502, 'provider_error', 'provider_error'],
      ['down', 502, 'provider_error', 'provider_error'],
      ['unsafe', 400, 'provider_error', 'content_policy_violation'],
    ])('model %s: %i %s / %s with the provider named', async (model, status, type, code) => {
      const body = await expectError(await chat({ ...CHAT, model }), status, { type, code, provider: 'openai' });
      expect(body.message.length).toBeGreaterThan(0);
    });

    it('an upstream 429 is a 429 rate_limit_exceeded with its Retry-After passed on', async () => {
      const res = await chat({ ...CHAT, model: 'busy' });
      expect(res.headers.get('retry-after')).toBe('7');
      await expectError(res, 429, { type: 'rate_limit_error', code: 'rate_limit_exceeded', provider: 'openai' });
    });

    it('an upstream 400 on a parameter keeps the param', async () => {
      await expectError(await chat({ ...CHAT, model: 'bad-param' }), 400, {
        type: 'invalid_request_error',
        code: 'missing_required_parameter',
        param: 'logit_bias',
        provider: 'openai',
      });
    });

    it('the openai SDK sees the same errors as its own classes', async () => {
      const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: KEY, maxRetries: 0, defaultHeaders: { 'x-gateway-provider': 'openai' } });
      const rateLimited = await client.chat.completions.create({ ...CHAT, model: 'busy' } as never).catch((e) => e);
      expect(rateLimited).toBeInstanceOf(OpenAI.RateLimitError);
      expect(rateLimited.headers.get('retry-after')).toBe('7');
      const missing = await client.chat.completions.create({ ...CHAT, model: 'no-such-model' } as never).catch((e) => e);
      expect(missing).toBeInstanceOf(OpenAI.NotFoundError);
      expect(missing.error).toMatchObject({ type: 'provider_error', code: 'model_not_found', provider: 'openai' });
      const badKey = await client.chat.completions.create({ ...CHAT, model: 'bad-key' } as never).catch((e) => e);
      expect(badKey).toBeInstanceOf(OpenAI.AuthenticationError);
    });

    it('an upstream nobody listens on is a 502 provider_error', async () => {
      const closed = await closedPort();
      const other = await startGateway({ providers: { openai: { baseUrl: `http://127.0.0.1:${closed}/v1` } } });
      try {
        const res = await fetch(`${other.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-gateway-provider': 'openai', 'x-gateway-api-key': KEY },
          body: JSON.stringify(CHAT),
        });
        const body = await expectError(res, 502, { type: 'provider_error', code: 'provider_error', provider: 'openai' });
        expect(body.message).toContain('ECONNREFUSED');
      } finally {
        await other.close();
      }
    });

    it('a stream cut after its first chunk ends with one error event and no [DONE]', async () => {
      const res = await chat({ ...CHAT, model: 'cut', stream: true });
      expect(res.status).toBe(200);
      const text = await res.text();
      const events = text.split('\n\n').filter(Boolean);
      expect(events.slice(0, 2).map((e) => JSON.parse(e.slice(6)).choices[0].delta.content)).toEqual(['Hel', 'lo']);
      const last = JSON.parse(events.at(-1)!.slice(6));
      expect(last).toMatchObject({ status: 'failure', error: { type: 'provider_error', code: 'provider_error', provider: 'openai' } });
      expect(text).not.toContain('[DONE]');
    });

    it('a stream that ends without [DONE] is reported as cut too', async () => {
      const res = await chat({ ...CHAT, model: 'short', stream: true });
      const text = await res.text();
      const last = JSON.parse(text.split('\n\n').filter(Boolean).at(-1)!.slice(6));
      expect(last.error).toMatchObject({ type: 'provider_error', code: 'provider_error' });
      expect(text).not.toContain('[DONE]');
    });
  });

  describe('x-gateway-debug', () => {
    it('adds error.debug with the upstream status and body, the attempts and timings', async () => {
      const res = await chat({ ...CHAT, model: 'broken' }, { 'x-gateway-debug': 'true' });
      const body: any = await res.json();
      expect(res.status).toBe(502);
      expect(body.error.debug).toMatchObject({
        upstream_status: 500,
        upstream_body: expect.stringContaining('The server had an error while processing your request.'),
        attempts: expect.any(Array),
        timings: { total_ms: expect.any(Number) },
        request_id: res.headers.get('x-gateway-request-id'),
      });
    });

    it('is absent without the header', async () => {
      const body = (await (await chat({ ...CHAT, model: 'broken' })).json()) as any;
      expect(body.error.debug).toBeUndefined();
    });
  });

  describe('no credential in any answer or log line', () => {
    const PLAIN = 'plainsecretvalue4242'; // no well-known key shape: only knowing it is a credential can hide it

    it.each([
      ['x-gateway-api-key', { 'x-gateway-api-key': KEY }, KEY],
      ['Authorization: Bearer', { authorization: `Bearer ${PLAIN}` }, PLAIN],
      ['x-gateway-api-key without a key shape', { 'x-gateway-api-key': PLAIN }, PLAIN],
    ])('key sent as %s and echoed back by the upstream', async (_how, auth, secret) => {
      const logsBefore = gw.logs.lines.length;
      const answers: string[] = [];
      for (const model of ['echo', 'bad-key']) {
        for (const debug of ['true', 'false']) {
          const res = await send('/v1/chat/completions', {
            headers: { 'x-gateway-provider': 'openai', 'x-gateway-debug': debug, ...auth },
            body: JSON.stringify({ ...CHAT, model }),
          });
          const text = await res.text();
          expect(res.status).toBeGreaterThanOrEqual(400);
          answers.push(text, JSON.stringify([...res.headers]));
        }
      }
      // The upstream did see (and echo) the key, so the test would notice a leak.
      expect(upstream.received('POST /v1/chat/completions').at(-1)!.headers.authorization).toBe(`Bearer ${secret}`);
      const debugAnswer = JSON.parse(answers[0]!);
      expect(debugAnswer.error.debug.upstream_body).toContain('[REDACTED]');
      for (const text of answers) expect(text).not.toContain(secret);
      const logs = gw.logs.lines.slice(logsBefore).join('\n');
      expect(logs).toContain('"requestId"');
      expect(logs).not.toContain(secret);
    });

    it('not in the log line of a request that succeeds', async () => {
      const logsBefore = gw.logs.lines.length;
      const res = await send('/v1/chat/completions', {
        headers: { 'x-gateway-provider': 'openai', authorization: `Bearer ${PLAIN}` },
        body: JSON.stringify(CHAT),
      });
      expect(res.status).toBe(200);
      await res.arrayBuffer();
      const line = gw.logs
        .records()
        .slice(logsBefore)
        .find((r) => r.msg === 'request');
      expect(line).toMatchObject({ requestId: res.headers.get('x-gateway-request-id'), status: 200, provider: 'openai' });
      expect(gw.logs.lines.slice(logsBefore).join('\n')).not.toContain(PLAIN);
    });
  });

  it('a caller that goes away cancels the upstream request', async () => {
    let upstreamClosed!: () => void;
    const closed = new Promise<void>((resolve) => (upstreamClosed = resolve));
    upstream.on('GET /v1/models', (_req, res) => {
      res.once('close', () => upstreamClosed());
      // never answers
    });
    const req = httpRequest(`${gw.url}/v1/models`, { headers: { 'x-gateway-provider': 'openai', 'x-gateway-api-key': KEY } });
    req.on('error', () => undefined);
    req.end();
    while (!upstream.received('GET /v1/models').length) await new Promise((r) => setTimeout(r, 10));
    req.destroy();
    await closed;
    upstream.on('GET /v1/models', { json: fixtureJson('openai', 'models') });
  });
});
