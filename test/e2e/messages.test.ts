/**
 * /v1/messages and /v1/messages/count_tokens end to end through the official
 * `@anthropic-ai/sdk` against fakes: forwarded as it is to anthropic, translated through chat
 * for openai, google and bedrock (JSON and streams, tools, images, thinking), the outbound
 * request asserted; errors in Anthropic's shape when the request carries anthropic-version.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Anthropic from '@anthropic-ai/sdk';
import { FakeUpstream, type FakeReply } from '../helpers/fake-upstream.js';
import { startGateway, type TestGateway } from '../helpers/start-gateway.js';
import { fixtureChunks, fixtureJson } from '../helpers/fixtures.js';
import { eventStreamReply } from '../conformance/replies.js';
import { SMALL_PNG } from '../conformance/case.js';

const AWS = { 'x-gateway-aws-access-key-id': 'AKIAIOSFODNN7EXAMPLE', 'x-gateway-aws-secret-access-key': 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' };
const BEDROCK_CLAUDE = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const TOOLS = [
  { name: 'get_weather', description: 'Weather of a city', input_schema: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] } },
  { name: 'get_time', description: 'Time in a zone', input_schema: { type: 'object' as const, properties: { timezone: { type: 'string' } } } },
];

let fake: FakeUpstream;
let gw: TestGateway;

function sdk(provider: string, headers: Record<string, string> = {}) {
  return new Anthropic({ baseURL: gw.url, apiKey: 'sk-test-anthropic-0001', defaultHeaders: { 'x-gateway-provider': provider, ...headers }, maxRetries: 0 });
}

function sse(provider: string, name: string): FakeReply {
  return { chunks: fixtureChunks(provider, name), headers: { 'content-type': 'text/event-stream' } };
}

/** The SSE events of a raw /v1/messages stream, parsed. */
async function rawEvents(provider: string, body: unknown, headers: Record<string, string> = {}): Promise<Array<{ event: string; data: any }>> {
  const res = await fetch(`${gw.url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-gateway-provider': provider, 'x-api-key': 'k', 'anthropic-version': '2023-06-01', ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return text
    .split('\n\n')
    .filter((b) => b.trim())
    .map((block) => {
      const event = /^event: (.*)$/m.exec(block)?.[1] ?? '';
      const data = JSON.parse(/^data: (.*)$/m.exec(block)![1]!);
      return { event, data };
    });
}

/** Checks Anthropic's event grammar: start, blocks opened and closed in order (deltas of the open kind only), delta, stop. */
function checkGrammar(events: Array<{ event: string; data: any }>): void {
  expect(events[0]!.event).toBe('message_start');
  expect(events.at(-1)!.event).toBe('message_stop');
  expect(events.at(-2)!.event).toBe('message_delta');
  const kinds = new Map<number, string>();
  const closed = new Set<number>();
  let next = 0;
  for (const { event, data } of events) {
    expect(data.type).toBe(event);
    if (event === 'content_block_start') {
      expect(data.index).toBe(next++);
      kinds.set(data.index, data.content_block.type);
    } else if (event === 'content_block_delta') {
      expect(closed.has(data.index)).toBe(false);
      const kind = kinds.get(data.index);
      const allowed: Record<string, string[]> = { text: ['text_delta'], thinking: ['thinking_delta', 'signature_delta'], tool_use: ['input_json_delta'] };
      expect(allowed[kind!]).toContain(data.delta.type);
    } else if (event === 'content_block_stop') {
      expect(kinds.has(data.index)).toBe(true);
      closed.add(data.index);
    }
  }
  expect(closed.size).toBe(kinds.size);
}

beforeAll(async () => {
  fake = await new FakeUpstream().start();
  gw = await startGateway({
    providers: {
      anthropic: { baseUrl: fake.url },
      google: { baseUrl: fake.url },
      bedrock: { baseUrl: fake.url, region: 'us-east-1' },
      openai: { baseUrl: `${fake.url}/oai` },
    },
  });
});
afterAll(async () => {
  await gw?.close();
  await fake?.stop();
});

describe('/v1/messages translated for openai', () => {
  const request = {
    model: 'gpt-4o',
    max_tokens: 300,
    system: 'Use the tools.',
    messages: [
      {
        role: 'user' as const,
        content: [
          { type: 'text' as const, text: 'Weather and time in Paris? Here is a map.' },
          { type: 'image' as const, source: { type: 'base64' as const, media_type: 'image/png' as const, data: SMALL_PNG } },
        ],
      },
    ],
    tools: TOOLS,
    tool_choice: { type: 'any' as const },
    stop_sequences: ['END'],
    temperature: 0.2,
    metadata: { user_id: 'user-42' },
  };
  const expectedChat = {
    model: 'gpt-4o',
    messages: [
      { role: 'system', content: 'Use the tools.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Weather and time in Paris? Here is a map.' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${SMALL_PNG}` } },
        ],
      },
    ],
    max_tokens: 300,
    temperature: 0.2,
    stop: ['END'],
    tools: TOOLS.map((t) => ({ type: 'function', function: { name: t.name, parameters: t.input_schema, description: t.description } })),
    tool_choice: 'required',
    user: 'user-42',
  };
  const expectedMessage = {
    id: 'msg_BxTools77a1',
    type: 'message',
    role: 'assistant',
    model: 'gpt-4o-2024-08-06',
    content: [
      { type: 'text', text: 'Let me look that up.' },
      { type: 'tool_use', id: 'call_Kq3pZ8b2VwXy1', name: 'get_weather', input: { city: 'Paris' } },
      { type: 'tool_use', id: 'call_Lr4qA9c3WxYz2', name: 'get_time', input: { timezone: 'Europe/Paris' } },
    ],
    stop_reason: 'tool_use',
    stop_sequence: null,
    usage: { input_tokens: 92, output_tokens: 48, cache_creation_input_tokens: 0, cache_read_input_tokens: 128 },
  };

  it('answers a Message: the chat request sent, tool_use blocks with the call ids, usage with cache reads apart', async () => {
    fake.on('POST /oai/chat/completions', { json: fixtureJson('openai', 'tools') });
    const message = await sdk('openai').messages.create(request);
    const sent = fake.received('POST /oai/chat/completions').at(-1)!;
    expect(sent.json()).toEqual(expectedChat);
    expect(sent.headers.authorization).toBe('Bearer sk-test-anthropic-0001');
    expect(sent.headers['x-api-key']).toBeUndefined();
    expect(message).toEqual(expectedMessage);
  });

  it('streams Anthropic events in order: message_start with input tokens, blocks in order, message_delta with the exact usage', async () => {
    fake.on('POST /oai/chat/completions', sse('openai', 'tools'));
    const stream = sdk('openai').messages.stream(request);
    const final = await stream.finalMessage();
    expect(fake.received('POST /oai/chat/completions').at(-1)!.json()).toEqual({ ...expectedChat, stream: true, stream_options: { include_usage: true } });
    expect(final).toMatchObject(expectedMessage);

    const events = await rawEvents('openai', { ...request, stream: true });
    checkGrammar(events);
    expect(events[0]!.data.message.usage.input_tokens).toBeGreaterThan(0);
    expect(events.at(-2)!.data).toEqual({ type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: expectedMessage.usage });
    expect(events.filter((e) => e.event === 'content_block_start').map((e) => e.data.content_block.type)).toEqual(['text', 'tool_use', 'tool_use']);
  });

  it('keeps tool-use ids between turns: tool_use and tool_result become the call and its tool message', async () => {
    fake.on('POST /oai/chat/completions', { json: fixtureJson('openai', 'chat') });
    await sdk('openai').messages.create({
      ...request,
      messages: [
        ...request.messages,
        { role: 'assistant', content: expectedMessage.content as any },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'call_Kq3pZ8b2VwXy1', content: '18°C' },
            { type: 'tool_result', tool_use_id: 'call_Lr4qA9c3WxYz2', content: [{ type: 'text', text: '14:05' }], is_error: false },
            { type: 'text', text: 'Thanks.' },
          ],
        },
      ],
    });
    const sent = fake.received('POST /oai/chat/completions').at(-1)!.json();
    expect(sent.messages.slice(2)).toEqual([
      {
        role: 'assistant',
        content: 'Let me look that up.',
        tool_calls: [
          { id: 'call_Kq3pZ8b2VwXy1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
          { id: 'call_Lr4qA9c3WxYz2', type: 'function', function: { name: 'get_time', arguments: '{"timezone":"Europe/Paris"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_Kq3pZ8b2VwXy1', content: '18°C' },
      { role: 'tool', tool_call_id: 'call_Lr4qA9c3WxYz2', content: '14:05' },
      { role: 'user', content: 'Thanks.' },
    ]);
  });

  it("answers errors in Anthropic's shape with anthropic-version, in the contract's without", async () => {
    fake.on('POST /oai/chat/completions', {
      json: { error: { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' } },
      status: 429,
      headers: { 'retry-after': '3' },
    });
    const err: any = await sdk('openai')
      .messages.create(request)
      .catch((e) => e);
    expect(err).toBeInstanceOf(Anthropic.RateLimitError);
    expect(err.error).toMatchObject({ type: 'error', error: { type: 'rate_limit_error', message: 'Rate limit reached' } });
    expect(err.headers.get('retry-after')).toBe('3');
    const res = await fetch(`${gw.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-gateway-provider': 'openai', authorization: 'Bearer k' },
      body: JSON.stringify(request),
    });
    expect(res.status).toBe(429);
    expect(await res.json()).toMatchObject({ status: 'failure', error: { type: 'rate_limit_error', code: 'rate_limit_exceeded', provider: 'openai' } });
    // validation errors too
    const bad: any = await sdk('openai')
      .messages.create({ ...request, max_tokens: undefined as any })
      .catch((e) => e);
    expect(bad).toBeInstanceOf(Anthropic.BadRequestError);
    expect(bad.error.error.type).toBe('invalid_request_error');
  });

  it('ends a stream that fails midway with an error event the SDK raises', async () => {
    const chunks = [
      ...fixtureChunks('openai', 'tools').slice(0, 4),
      'data: {"error":{"message":"The server had an error while processing your request.","type":"server_error"}}\n\n',
    ];
    fake.on('POST /oai/chat/completions', { chunks, headers: { 'content-type': 'text/event-stream' } });
    const events = await rawEvents('openai', { ...request, stream: true });
    expect(events.at(-1)!.event).toBe('error');
    expect(events.at(-1)!.data).toMatchObject({ type: 'error', error: { type: 'api_error' } });
    expect(events.some((e) => e.event === 'message_stop')).toBe(false);
    expect(
      events
        .filter((e) => e.event === 'content_block_delta')
        .map((e) => e.data.delta.text)
        .join(''),
    ).toBe('Let me look that up.');
    fake.on('POST /oai/chat/completions', { chunks, headers: { 'content-type': 'text/event-stream' } });
    const failure = await sdk('openai')
      .messages.stream(request)
      .finalMessage()
      .catch((e) => e);
    expect(failure).toBeInstanceOf(Anthropic.APIError);
  });

  it('count_tokens: a clear 400 where the provider cannot count', async () => {
    const before = fake.requests.length;
    const err: any = await sdk('openai')
      .messages.countTokens({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }] })
      .catch((e) => e);
    expect(err).toBeInstanceOf(Anthropic.BadRequestError);
    expect(err.error.error.message).toMatch(/openai.*count_tokens/);
    expect(fake.requests.length).toBe(before);
  });
});

describe('/v1/messages translated for google', () => {
  const path = (stream: boolean) => `POST /v1beta/models/gemini-2.5-flash:${stream ? 'streamGenerateContent' : 'generateContent'}`;
  const request = {
    model: 'gemini-2.5-flash',
    max_tokens: 4000,
    thinking: { type: 'enabled' as const, budget_tokens: 2000 },
    messages: [{ role: 'user' as const, content: 'What is the weather in Paris?' }],
    tools: [TOOLS[0]!],
  };
  const parts = () => fixtureJson('google', 'thinking-tools').candidates[0].content.parts;

  it('answers thinking as a thinking block, the call signature in an empty thinking block before its tool_use; thinking sets thinkingConfig', async () => {
    fake.on(path(false), { json: fixtureJson('google', 'thinking-tools') });
    const message = await sdk('google').messages.create(request);
    const sent = fake.received(path(false)).at(-1)!;
    expect(sent.headers['x-goog-api-key']).toBe('sk-test-anthropic-0001');
    expect(sent.json().generationConfig).toEqual({ maxOutputTokens: 4000, thinkingConfig: { thinkingBudget: 2048, includeThoughts: true } });
    expect(message.content).toEqual([
      { type: 'thinking', thinking: parts()[0].text, signature: '' },
      { type: 'thinking', thinking: '', signature: parts()[1].thoughtSignature },
      { type: 'tool_use', id: 'call_0', name: 'get_weather', input: { city: 'Paris' } },
    ]);
    expect(message.usage).toMatchObject({ input_tokens: 24, cache_read_input_tokens: 16, output_tokens: 42 });
    expect(message.stop_reason).toBe('tool_use');

    fake.on(path(true), sse('google', 'thinking-tools'));
    const events = await rawEvents('google', { ...request, stream: true });
    checkGrammar(events);
    expect(events[0]!.data.message.usage.input_tokens).toBe(24);
    fake.on(path(true), sse('google', 'thinking-tools'));
    expect(await sdk('google').messages.stream(request).finalMessage()).toMatchObject({ ...message, id: expect.stringMatching(/^msg_/) });
  });

  it('sends the thought part and the call signature back where they came from on the next turn', async () => {
    fake.on(path(false), { json: fixtureJson('google', 'thinking-tools') });
    const first = await sdk('google').messages.create(request);
    fake.on(path(false), { json: fixtureJson('google', 'thinking-final') });
    const second = await sdk('google').messages.create({
      ...request,
      messages: [
        ...request.messages,
        { role: 'assistant', content: first.content as any },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_0', content: '{"temperature_c":18}' }] },
      ],
    });
    expect(second.content.at(-1)).toEqual({ type: 'text', text: 'It is 18°C and sunny in Paris.' });
    const sent = fake.received(path(false)).at(-1)!.json();
    expect(sent.contents.slice(1)).toEqual([
      { role: 'model', parts: [{ text: parts()[0].text, thought: true }, parts()[1]] },
      { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { temperature_c: 18 } } }] },
    ]);
  });

  it('count_tokens through countTokens', async () => {
    fake.on('POST /v1beta/models/gemini-2.5-flash:countTokens', { json: fixtureJson('google', 'count-tokens') });
    const counted = await sdk('google').messages.countTokens({ model: 'gemini-2.5-flash', system: 'Be brief.', messages: [{ role: 'user', content: 'Hello there' }] });
    expect(counted).toEqual({ input_tokens: 31 });
    expect(fake.received('POST /v1beta/models/gemini-2.5-flash:countTokens').at(-1)!.json()).toEqual({
      generateContentRequest: {
        model: 'models/gemini-2.5-flash',
        contents: [{ role: 'user', parts: [{ text: 'Hello there' }] }],
        systemInstruction: { parts: [{ text: 'Be brief.' }] },
      },
    });
  });
});

describe('/v1/messages translated for bedrock', () => {
  const path = (action: string) => `POST /model/${encodeURIComponent(BEDROCK_CLAUDE)}/${action}`;
  const request = {
    model: BEDROCK_CLAUDE,
    max_tokens: 20000,
    thinking: { type: 'enabled' as const, budget_tokens: 16000 },
    messages: [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'Weather in Paris?', cache_control: { type: 'ephemeral' as const } }] }],
    tools: [TOOLS[0]!],
  };
  const content = () => fixtureJson('bedrock', 'thinking').output.message.content;

  it('answers reasoning as thinking and redacted_thinking blocks, whole and streamed (metadata before messageStop)', async () => {
    fake.on(path('converse'), { json: fixtureJson('bedrock', 'thinking') });
    const message = await sdk('bedrock', AWS).messages.create(request);
    const sent = fake.received(path('converse')).at(-1)!.json();
    expect(sent.additionalModelRequestFields).toEqual({ thinking: { type: 'enabled', budget_tokens: 16384 } });
    expect(sent.inferenceConfig).toEqual({ maxTokens: 20000 });
    expect(sent.messages[0].content).toEqual([{ text: 'Weather in Paris?' }, { cachePoint: { type: 'default' } }]);
    expect(message.content).toEqual([
      { type: 'thinking', thinking: content()[0].reasoningContent.reasoningText.text, signature: content()[0].reasoningContent.reasoningText.signature },
      { type: 'redacted_thinking', data: content()[1].reasoningContent.redactedContent },
      { type: 'text', text: "I'll check the weather." },
      { type: 'tool_use', id: 'tooluse_Pw3cXqPxRkqFdH6lRKXwAA', name: 'get_weather', input: { city: 'Paris' } },
    ]);
    expect(message.usage).toMatchObject({ input_tokens: 300, cache_read_input_tokens: 500, output_tokens: 90 });

    fake.on(path('converse-stream'), eventStreamReply('bedrock', 'thinking.events'));
    const events = await rawEvents('bedrock', { ...request, stream: true }, AWS);
    checkGrammar(events);
    expect(events.filter((e) => e.event === 'content_block_start').map((e) => e.data.content_block.type)).toEqual(['thinking', 'redacted_thinking', 'text', 'tool_use']);
    expect(events.at(-2)!.data.delta.stop_reason).toBe('tool_use');
    fake.on(path('converse-stream'), eventStreamReply('bedrock', 'thinking.events'));
    const final = await sdk('bedrock', AWS).messages.stream(request).finalMessage();
    expect(final.content).toEqual(message.content);
    expect(final.usage).toMatchObject(message.usage);
  });

  it('sends thinking blocks back as reasoningContent with their signature, and the tool_use id as toolUseId', async () => {
    fake.on(path('converse'), { json: fixtureJson('bedrock', 'thinking-final') });
    await sdk('bedrock', AWS).messages.create({
      ...request,
      messages: [
        ...request.messages,
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: content()[0].reasoningContent.reasoningText.text, signature: content()[0].reasoningContent.reasoningText.signature },
            { type: 'redacted_thinking', data: content()[1].reasoningContent.redactedContent },
            { type: 'tool_use', id: 'tooluse_Pw3cXqPxRkqFdH6lRKXwAA', name: 'get_weather', input: { city: 'Paris' } },
          ],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tooluse_Pw3cXqPxRkqFdH6lRKXwAA', content: '18°C' }] },
      ],
    });
    const sent = fake.received(path('converse')).at(-1)!.json();
    expect(sent.messages.slice(1)).toEqual([
      { role: 'assistant', content: [content()[0], content()[1], content()[3]] },
      { role: 'user', content: [{ toolResult: { toolUseId: 'tooluse_Pw3cXqPxRkqFdH6lRKXwAA', content: [{ text: '18°C' }] } }] },
    ]);
  });

  it('count_tokens through CountTokens', async () => {
    fake.on(path('count-tokens'), { json: fixtureJson('bedrock', 'count-tokens') });
    const counted = await sdk('bedrock', AWS).messages.countTokens({ model: BEDROCK_CLAUDE, messages: [{ role: 'user', content: 'Hello' }] });
    expect(counted).toEqual({ input_tokens: 42 });
    expect(fake.received(path('count-tokens')).at(-1)!.json()).toEqual({ input: { converse: { messages: [{ role: 'user', content: [{ text: 'Hello' }] }] } } });
  });
});

describe('/v1/messages forwarded to anthropic', () => {
  it('sends the bytes as they are with the caller key, version and beta headers; answers the upstream bytes', async () => {
    const answer = fixtureJson('anthropic', 'thinking');
    fake.on('POST /v1/messages', { raw: JSON.stringify(answer), headers: { 'content-type': 'application/json', 'request-id': 'req_pass_1' } });
    const body = JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }], container: 'x' });
    const res = await fetch(`${gw.url}/v1/messages`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-gateway-provider': 'anthropic',
        'x-api-key': 'sk-ant-caller',
        'anthropic-version': '2023-06-01',
        'anthropic-beta': 'interleaved-thinking-2025-05-14',
      },
      body,
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(JSON.stringify(answer));
    expect(res.headers.get('x-request-id')).toBe('req_pass_1');
    const sent = fake.received('POST /v1/messages').at(-1)!;
    expect(sent.body.toString()).toBe(body);
    expect(sent.headers).toMatchObject({ 'x-api-key': 'sk-ant-caller', 'anthropic-version': '2023-06-01', 'anthropic-beta': 'interleaved-thinking-2025-05-14' });
  });

  it('streams the upstream events untouched; the SDK assembles thinking, signatures and tool use', async () => {
    fake.on('POST /v1/messages', sse('anthropic', 'thinking'));
    const final = await sdk('anthropic')
      .messages.stream({ model: 'claude-sonnet-4-5', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] })
      .finalMessage();
    expect(final).toMatchObject(fixtureJson('anthropic', 'thinking'));
    fake.on('POST /v1/messages', sse('anthropic', 'thinking'));
    const res = await fetch(`${gw.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-gateway-provider': 'anthropic', 'x-api-key': 'k', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 10, stream: true, messages: [{ role: 'user', content: 'Hi' }] }),
    });
    expect(await res.text()).toBe(fixtureChunks('anthropic', 'thinking').join(''));
  });

  it('count_tokens is forwarded', async () => {
    fake.on('POST /v1/messages/count_tokens', { json: { input_tokens: 17 } });
    expect(await sdk('anthropic').messages.countTokens({ model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'Hi' }] })).toEqual({ input_tokens: 17 });
  });
});
