/**
 * Guardrails on /v1/messages and /v1/responses: the request's text (system, messages, tool
 * results; instructions, input items) is checked before anything goes upstream, and the answer's
 * text in its own format (Message text blocks, response output_text), streamed or not, whether
 * translated or forwarded as the provider's own events.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeUpstream } from '../../helpers/fake-upstream.js';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';
import { fixtureJson } from '../../helpers/fixtures.js';

const KEY = 'sk-caller-key-1234567890';

describe('guardrails on the Messages and Responses APIs', () => {
  let fake: FakeUpstream;
  let gw: TestGateway;
  const config = (provider: string, extra: Record<string, unknown>) => ({ 'x-gateway-config': JSON.stringify({ provider, ...extra }), 'x-gateway-api-key': KEY });

  async function post(path: string, body: unknown, headers: Record<string, string>) {
    const res = await fetch(`${gw.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
    return { status: res.status, text: await res.text() };
  }

  beforeAll(async () => {
    fake = await new FakeUpstream().start();
    const guardrails = {
      polite: { action: 'deny', checks: [{ type: 'contains', words: ['forbidden'], operator: 'none' }] },
      'mask-pii': { action: 'redact', checks: [{ type: 'pii' }] },
    };
    gw = await startGateway({ providers: { openai: { baseUrl: `${fake.url}/oai` }, anthropic: { baseUrl: fake.url } }, guardrails });
  });
  afterAll(async () => {
    await gw?.close();
    await fake?.stop();
  });

  it('messages: input deny checks system, messages and tool results; the error is Anthropic-shaped for Anthropic clients', async () => {
    const before = fake.requests.length;
    const body = { model: 'gpt-4o', max_tokens: 10, messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'a forbidden word' }] }] };
    const res = await post('/v1/messages', body, { ...config('openai', { input_guardrails: ['polite'] }), 'anthropic-version': '2023-06-01' });
    expect(res.status).toBe(422);
    expect(JSON.parse(res.text)).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', message: expect.stringContaining('polite') } });
    const system = await post('/v1/messages', { ...body, system: 'forbidden', messages: [{ role: 'user', content: 'hi' }] }, config('openai', { input_guardrails: ['polite'] }));
    expect(system.status).toBe(422);
    expect(fake.requests.length).toBe(before);
  });

  it("messages: output deny reads anthropic's own streamed events", async () => {
    const events = [
      {
        type: 'message_start',
        message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'c', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 3, output_tokens: 1 } },
      },
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'that is forb' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'idden' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 4 } },
      { type: 'message_stop' },
    ];
    fake.on('POST /v1/messages', { chunks: events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`), headers: { 'content-type': 'text/event-stream' } });
    const res = await post(
      '/v1/messages',
      { model: 'c', max_tokens: 10, stream: true, messages: [{ role: 'user', content: 'hi' }] },
      config('anthropic', { output_guardrails: ['polite'] }),
    );
    expect(res.status).toBe(422);
    expect(res.text).not.toContain('forb');
  });

  it('responses: output redaction masks the forwarded response and the translated stream, final response included', async () => {
    const answer = fixtureJson('openai', 'responses');
    answer.output[0].content[0].text = 'Write to jane.doe@example.com today.';
    fake.on('POST /oai/responses', { json: answer });
    const forwarded = await post('/v1/responses', { model: 'gpt-4.1', input: 'Contact?' }, config('openai', { output_guardrails: ['mask-pii'] }));
    expect(forwarded.status).toBe(200);
    expect(forwarded.text).not.toContain('jane.doe@example.com');
    expect(JSON.parse(forwarded.text).output[0].content[0].text).toMatch(/^Write to .+ today\.$/);

    const events = [
      {
        type: 'message_start',
        message: { id: 'msg_2', type: 'message', role: 'assistant', model: 'c', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 3, output_tokens: 1 } },
      },
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Mail jane.doe@' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'example.com now.' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 4 } },
      { type: 'message_stop' },
    ];
    fake.on('POST /v1/messages', { chunks: events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`), headers: { 'content-type': 'text/event-stream' } });
    const streamed = await post('/v1/responses', { model: 'claude', input: 'Contact?', stream: true }, config('anthropic', { output_guardrails: ['mask-pii'] }));
    expect(streamed.status).toBe(200);
    expect(streamed.text).not.toContain('jane.doe@example.com');
    expect(streamed.text).toContain('response.completed');
    fake.on('POST /v1/messages', { json: { ...fixtureJson('anthropic', 'thinking-final'), content: [{ type: 'text', text: 'Mail jane.doe@example.com now.' }] } });
    const translated = await post('/v1/responses', { model: 'claude', input: 'Contact?' }, config('anthropic', { output_guardrails: ['mask-pii'] }));
    expect(translated.status).toBe(200);
    expect(translated.text).not.toContain('jane.doe@example.com');
  });
});
