import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { FakeUpstream } from '../../helpers/fake-upstream.js';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';
import { CHAT, chatBody, chatCompletion, post, UPSTREAM_CHAT } from '../../helpers/routing-harness.js';

/**
 * A 2xx upstream answer that is not an answer (bytes that are not JSON, a stream event that is
 * not a chunk, a JSON object without what every answer of the provider has) is the upstream's bad
 * answer: 502 provider_error naming the provider before the first byte, and after it a stream
 * that ends with the contract's error body and no [DONE]; never passed on as a success.
 */
const KEY = 'sk-bad-answers-test-key-0001';
const OPENAI = { 'x-gateway-provider': 'openai', 'x-gateway-api-key': KEY };
const ANTHROPIC = { 'x-gateway-provider': 'anthropic', 'x-gateway-api-key': KEY };
const GOOGLE = { 'x-gateway-provider': 'google', 'x-gateway-api-key': KEY };
const HTML = { raw: '<html>oops</html>', headers: { 'content-type': 'application/json' } };
const GEMINI_CHAT = 'POST /v1beta/models/gemini-2.0-flash:generateContent';

const chunk = (content: string) =>
  `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;

/** An SSE answer's events as the gateway wrote them (data that is not JSON kept as text). */
async function streamed(path: string, body: unknown, headers: Record<string, string>) {
  const res = await request(`http://${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const text = await res.body.text();
  // The data line of each event (after its `event:` line, if any).
  const data = text
    .split('\n\n')
    .map((block) => block.split('\n').find((line) => line.startsWith('data: ')))
    .filter((line): line is string => line !== undefined)
    .map((line) => line.slice(6));
  return { status: res.statusCode, contentType: String(res.headers['content-type'] ?? ''), text, data };
}

describe('an upstream answer that is not an answer', () => {
  let openai: FakeUpstream;
  let anthropic: FakeUpstream;
  let google: FakeUpstream;
  let gw: TestGateway;

  beforeAll(async () => {
    [openai, anthropic, google] = await Promise.all([new FakeUpstream().start(), new FakeUpstream().start(), new FakeUpstream().start()]);
    gw = await startGateway({
      providers: { openai: { baseUrl: `${openai.url}/v1` }, anthropic: { baseUrl: anthropic.url }, google: { baseUrl: google.url } },
    });
  });
  afterAll(async () => {
    await gw?.close();
    await Promise.all([openai?.stop(), anthropic?.stop(), google?.stop()]);
  });
  beforeEach(() => {
    for (const f of [openai, anthropic, google]) f.requests.length = 0;
  });

  describe('bytes passed through that are not JSON', () => {
    it.each([
      ['HTML', '<html>oops</html>'],
      ['cut JSON', '{"id":"chatcmpl-1","choices":[{"index":0'],
      ['nothing', ''],
    ])('openai chat answering 200 application/json with %s: 502 provider_error, not a 200', async (_label, raw) => {
      openai.on(UPSTREAM_CHAT, { raw, headers: { 'content-type': 'application/json' } });
      const res = await post(gw.url, CHAT, chatBody(), OPENAI);
      expect(res.status).toBe(502);
      expect(res.json).toMatchObject({
        status: 'failure',
        error: { type: 'provider_error', code: 'provider_error', message: 'openai sent an answer that is not JSON.', provider: 'openai' },
      });
      expect(res.headers['x-gateway-provider']).toBe('openai');
      expect(openai.received(UPSTREAM_CHAT)).toHaveLength(1);
      expect(openai.received(UPSTREAM_CHAT)[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
    });

    it('a JSON answer with white space around it still passes through as its own bytes', async () => {
      const bytes = `\n  ${JSON.stringify(chatCompletion('fine'))}  \n`;
      openai.on(UPSTREAM_CHAT, { raw: bytes, headers: { 'content-type': 'application/json' } });
      const res = await post(gw.url, CHAT, chatBody(), OPENAI);
      expect(res.status).toBe(200);
      expect(res.text).toBe(bytes);
    });

    it('POST /v1/messages on anthropic (forwarded as it is): 502 provider_error, not a 200', async () => {
      anthropic.on('POST /v1/messages', HTML);
      const res = await post(gw.url, '/v1/messages', { model: 'claude-sonnet-4-5', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] }, ANTHROPIC);
      expect(res.status).toBe(502);
      expect(res.json.error).toMatchObject({ type: 'provider_error', code: 'provider_error', message: 'anthropic sent an answer that is not JSON.', provider: 'anthropic' });
      expect(anthropic.received('POST /v1/messages')[0]!.headers['x-api-key']).toBe(KEY);
    });

    it('fallback moves on from it to the next target', async () => {
      openai.on(UPSTREAM_CHAT, HTML, { json: chatCompletion('second') });
      const config = {
        'x-gateway-config': JSON.stringify({
          strategy: { mode: 'fallback' },
          targets: [
            { provider: 'openai', api_key: 'sk-first-target-key-0001' },
            { provider: 'openai', api_key: 'sk-second-target-key-0002' },
          ],
        }),
      };
      const res = await post(gw.url, CHAT, chatBody(), config);
      expect(res.status).toBe(200);
      expect(res.json.choices[0].message.content).toBe('second');
      expect(openai.received(UPSTREAM_CHAT).map((r) => r.headers.authorization)).toEqual(['Bearer sk-first-target-key-0001', 'Bearer sk-second-target-key-0002']);
    });
  });

  describe('a passed-through OpenAI stream with an event that is not JSON', () => {
    it.each([
      ['{not json', 'data: {not json\n\n'],
      ['text', 'data: oops\n\n'],
      ['a cut object', 'data: {"id":"c1","choices":[\n\n'],
    ])('after the first byte (%s): the failure event with the error body, no [DONE], nothing after it', async (_label, bad) => {
      openai.on(UPSTREAM_CHAT, { chunks: [chunk('Hel'), bad, chunk('lo'), 'data: [DONE]\n\n'], delayMs: 15 });
      const res = await streamed(`${gw.url.replace('http://', '')}${CHAT}`, chatBody({ stream: true }), OPENAI);
      expect(res.status).toBe(200);
      expect(res.contentType).toMatch(/^text\/event-stream/);
      expect(res.data).not.toContain('[DONE]');
      expect(res.text).not.toContain(bad.slice(6, -2));
      expect(res.data).toHaveLength(2);
      expect(JSON.parse(res.data[0]!).choices[0].delta.content).toBe('Hel');
      expect(JSON.parse(res.data[1]!)).toEqual({
        status: 'failure',
        message: 'openai sent a stream event that is not JSON.',
        error: { type: 'provider_error', code: 'provider_error', message: 'openai sent a stream event that is not JSON.', param: null, provider: 'openai' },
      });
      expect(openai.received(UPSTREAM_CHAT)).toHaveLength(1);
      expect(openai.received(UPSTREAM_CHAT)[0]!.json().stream).toBe(true);
    });

    it('as its first event: 502 provider_error before any byte (what the audit saw: data: {not json, then [DONE])', async () => {
      openai.on(UPSTREAM_CHAT, { chunks: ['data: {not json\n\n', 'data: [DONE]\n\n'], delayMs: 15 });
      const res = await post(gw.url, CHAT, chatBody({ stream: true }), OPENAI);
      expect(res.status).toBe(502);
      expect(res.json.error).toMatchObject({ type: 'provider_error', message: 'openai sent a stream event that is not JSON.', provider: 'openai' });
      expect(res.text).not.toContain('[DONE]');
    });

    it('an error event mid-stream: the failure event names the provider', async () => {
      openai.on(UPSTREAM_CHAT, { chunks: [chunk('Hel'), 'data: {"error":{"message":"boom mid stream","type":"server_error"}}\n\n'], delayMs: 15 });
      const res = await streamed(`${gw.url.replace('http://', '')}${CHAT}`, chatBody({ stream: true }), OPENAI);
      expect(res.status).toBe(200);
      expect(res.data).not.toContain('[DONE]');
      expect(JSON.parse(res.data.at(-1)!)).toEqual({
        status: 'failure',
        message: 'boom mid stream',
        error: { type: 'provider_error', code: 'provider_error', message: 'boom mid stream', param: null, provider: 'openai' },
      });
    });
  });

  describe('a /v1/messages stream forwarded to anthropic with an event that is not JSON', () => {
    it('after the first byte: the failure event with the error body, not the event', async () => {
      const ev = (type: string, data: unknown) => `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
      anthropic.on('POST /v1/messages', {
        chunks: [
          ev('message_start', {
            type: 'message_start',
            message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'm', content: [], usage: { input_tokens: 1, output_tokens: 0 } },
          }),
          'event: content_block_delta\ndata: <html>oops</html>\n\n',
          ev('message_stop', { type: 'message_stop' }),
        ],
        delayMs: 15,
      });
      const res = await streamed(
        `${gw.url.replace('http://', '')}/v1/messages`,
        { model: 'claude-sonnet-4-5', max_tokens: 10, stream: true, messages: [{ role: 'user', content: 'Hi' }] },
        ANTHROPIC,
      );
      expect(res.status).toBe(200);
      expect(res.text).not.toContain('oops');
      expect(res.text).not.toContain('message_stop');
      expect(res.text).toContain('event: error\n');
      expect(res.data).toHaveLength(2);
      expect(JSON.parse(res.data[1]!)).toEqual({
        status: 'failure',
        message: 'anthropic sent a stream event that is not JSON.',
        error: { type: 'provider_error', code: 'provider_error', message: 'anthropic sent a stream event that is not JSON.', param: null, provider: 'anthropic' },
      });
      expect(anthropic.received('POST /v1/messages')[0]!.json().stream).toBe(true);
    });
  });

  describe('a JSON answer without what every answer of the provider has', () => {
    it('anthropic answering {} to a chat request: 502 provider_error, not an empty made-up completion', async () => {
      anthropic.on('POST /v1/messages', { json: {} });
      const res = await post(gw.url, CHAT, chatBody({ model: 'claude-sonnet-4-5' }), ANTHROPIC);
      expect(res.status).toBe(502);
      expect(res.json.error).toMatchObject({
        type: 'provider_error',
        code: 'provider_error',
        message: 'anthropic sent an answer that is not a Messages object.',
        provider: 'anthropic',
      });
      const sent = anthropic.received('POST /v1/messages');
      expect(sent).toHaveLength(1);
      expect(sent[0]!.json()).toMatchObject({ model: 'claude-sonnet-4-5', messages: [{ role: 'user' }] });
    });

    it('anthropic answering an object of another type (an error with 200): 502', async () => {
      anthropic.on('POST /v1/messages', { json: { type: 'error', error: { type: 'api_error', message: 'x' } } });
      const res = await post(gw.url, CHAT, chatBody({ model: 'claude-sonnet-4-5' }), ANTHROPIC);
      expect(res.status).toBe(502);
      expect(res.json.error.provider).toBe('anthropic');
    });

    it('an anthropic Message with empty content and a stop reason is a legitimate answer', async () => {
      anthropic.on('POST /v1/messages', {
        json: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [], stop_reason: 'end_turn', usage: { input_tokens: 3, output_tokens: 0 } },
      });
      const res = await post(gw.url, CHAT, chatBody({ model: 'claude-sonnet-4-5' }), ANTHROPIC);
      expect(res.status).toBe(200);
      expect(res.json).toMatchObject({ id: 'msg_1', choices: [{ finish_reason: 'stop' }], usage: { prompt_tokens: 3, completion_tokens: 0 } });
    });

    it('gemini answering {}: 502; a refused prompt (promptFeedback only) is a legitimate answer', async () => {
      google.on(GEMINI_CHAT, { json: {} }, { json: { promptFeedback: { blockReason: 'SAFETY' }, usageMetadata: { promptTokenCount: 2, totalTokenCount: 2 } } });
      const bad = await post(gw.url, CHAT, chatBody({ model: 'gemini-2.0-flash' }), GOOGLE);
      expect(bad.status).toBe(502);
      expect(bad.json.error).toMatchObject({ type: 'provider_error', message: 'google sent an answer that is not a GenerateContent answer.', provider: 'google' });
      const refused = await post(gw.url, CHAT, chatBody({ model: 'gemini-2.0-flash' }), GOOGLE);
      expect(refused.status).toBe(200);
      expect(refused.json.choices[0].finish_reason).toBe('content_filter');
      expect(google.received(GEMINI_CHAT)).toHaveLength(2);
    });
  });
});
