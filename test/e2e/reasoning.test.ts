/**
 * Reasoning, prompt caching and upstream headers on the chat route, end to end through the
 * `openai` SDK against fakes of each provider's wire format (fixtures in test/fixtures/):
 * thinking reaches the caller as reasoning_content and thinking_blocks (whole and streamed),
 * goes back to the provider as its own blocks with signatures intact over a three-turn
 * tool-use conversation, reasoning_effort maps to each provider's control, cache_control
 * reaches Anthropic and Bedrock, cached and reasoning tokens are reported.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { FakeUpstream, sseChunks, type FakeReply } from '../helpers/fake-upstream.js';
import { startGateway, type TestGateway } from '../helpers/start-gateway.js';
import { fixtureChunks, fixtureJson } from '../helpers/fixtures.js';
import { assembleChat, comparable, postStream } from '../helpers/chat-stream.js';
import { eventStreamReply } from '../conformance/replies.js';

const AWS = { 'x-gateway-aws-access-key-id': 'AKIAIOSFODNN7EXAMPLE', 'x-gateway-aws-secret-access-key': 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' };
const CLAUDE = 'claude-sonnet-4-5-20250929';
const BEDROCK_CLAUDE = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const WEATHER = {
  type: 'function' as const,
  function: { name: 'get_weather', description: 'Weather of a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
};

/** A chat answer with tool arguments parsed (a stream's argument text may differ in spacing). */
function withParsedArguments(answer: any): any {
  return {
    ...answer,
    choices: answer.choices.map((c: any) => ({
      ...c,
      message: { ...c.message, tool_calls: c.message.tool_calls?.map((t: any) => ({ ...t, function: { ...t.function, arguments: JSON.parse(t.function.arguments) } })) },
    })),
  };
}

let fake: FakeUpstream;
let gw: TestGateway;

function client(provider: string, headers: Record<string, string> = {}, key = 'sk-test-key-000111') {
  return new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key, defaultHeaders: { 'x-gateway-provider': provider, ...headers }, maxRetries: 0 });
}

function sse(provider: string, name: string, headers: Record<string, string> = {}): FakeReply {
  return { chunks: fixtureChunks(provider, name), headers: { 'content-type': 'text/event-stream', ...headers } };
}

beforeAll(async () => {
  fake = await new FakeUpstream().start();
  gw = await startGateway({
    providers: {
      anthropic: { baseUrl: fake.url },
      google: { baseUrl: fake.url },
      'vertex-ai': { baseUrl: fake.url },
      bedrock: { baseUrl: fake.url, region: 'us-east-1' },
      deepseek: { baseUrl: fake.url },
      groq: { baseUrl: `${fake.url}/groq` },
      openai: { baseUrl: `${fake.url}/oai` },
    },
  });
});
afterAll(async () => {
  await gw?.close();
  await fake?.stop();
});

/** The turns of one tool-use conversation with thinking on, as the caller sends them. */
interface ThreeTurns {
  provider: string;
  headers?: Record<string, string>;
  model: string;
  route: (stream: boolean) => string;
  /** The fake's answers: turn 1 (a tool call with thinking), turns 2 and 3 (plain answers). */
  replies: [FakeReply, FakeReply, FakeReply];
  /** What the provider must have received for the assistant turn sent back, with its tool result. */
  checkReplayed(body: any, turn: 2 | 3): void;
}

async function threeTurns(t: ThreeTurns, stream: boolean): Promise<void> {
  const c = client(t.provider, t.headers);
  const route = t.route(stream);
  const ask = async (messages: any[], reply: FakeReply) => {
    fake.on(route, reply);
    const request = { model: t.model, messages, tools: [WEATHER], reasoning_effort: 'medium' as const, max_completion_tokens: 12000 };
    if (!stream) return (await c.chat.completions.create(request)).choices[0]!.message as any;
    const raw = await postStream(
      `${gw.url}/v1/chat/completions`,
      { ...request, stream: true },
      { 'x-gateway-provider': t.provider, authorization: 'Bearer sk-test-key-000111', ...t.headers },
    );
    expect(raw.done).toBe(true);
    return assembleChat(raw.events).choices[0].message;
  };
  const history: any[] = [{ role: 'user', content: 'What is the weather in Paris?' }];
  const first = await ask(history, t.replies[0]);
  expect(first.tool_calls).toHaveLength(1);
  expect(first.content ?? '').not.toContain('weather in Paris. I');
  expect(first.reasoning_content.length).toBeGreaterThan(0);
  history.push(first, { role: 'tool', tool_call_id: first.tool_calls[0].id, content: '{"temperature_c":18,"sky":"sunny"}' });
  const second = await ask(history, t.replies[1]);
  expect(second.content).toContain('18°C');
  t.checkReplayed(fake.received(route).at(-1)!.json(), 2);
  history.push(second, { role: 'user', content: 'Thanks! And tomorrow?' });
  const third = await ask(history, t.replies[2]);
  expect(third.content).toContain('18°C');
  t.checkReplayed(fake.received(route).at(-1)!.json(), 3);
}

describe('anthropic thinking through chat', () => {
  it('answers thinking as reasoning_content and thinking_blocks (signatures, redacted), cached tokens and the thinking budget of reasoning_effort', async () => {
    fake.on('POST /v1/messages', { json: fixtureJson('anthropic', 'thinking') });
    const answer: any = await client('anthropic').chat.completions.create({
      model: CLAUDE,
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      tools: [WEATHER],
      reasoning_effort: 'medium',
      temperature: 0.3,
      top_p: 0.5,
    });
    const sent = fake.received('POST /v1/messages').at(-1)!.json();
    expect(sent.thinking).toEqual({ type: 'enabled', budget_tokens: 8192 });
    // thinking takes no temperature, and top_p only from 0.95
    expect(sent.temperature).toBeUndefined();
    expect(sent.top_p).toBe(0.95);
    expect(sent.max_tokens).toBe(8192 + 4096);
    const message = answer.choices[0].message;
    expect(message.content).toBe("I'll check the weather.");
    expect(message.reasoning_content).toBe('The user wants the weather in Paris. I should call get_weather with city Paris.');
    const fixture = fixtureJson('anthropic', 'thinking');
    expect(message.thinking_blocks).toEqual([fixture.content[0], fixture.content[1]]);
    expect(message.tool_calls).toEqual([{ id: 'toolu_01A09q90qw90lq917835lq9', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }]);
    expect(answer.usage).toEqual({ prompt_tokens: 1536, completion_tokens: 180, total_tokens: 1716, prompt_tokens_details: { cached_tokens: 1024 } });
  });

  it('streams reasoning as delta.reasoning_content and whole thinking_blocks, never inside content; reassembled it equals the whole answer', async () => {
    fake.on('POST /v1/messages', { json: fixtureJson('anthropic', 'thinking') });
    const request = { model: CLAUDE, messages: [{ role: 'user', content: 'Weather in Paris?' }], tools: [WEATHER], reasoning_effort: 'low' };
    const whole: any = await client('anthropic').chat.completions.create(request as any);
    fake.on('POST /v1/messages', sse('anthropic', 'thinking'));
    const raw = await postStream(
      `${gw.url}/v1/chat/completions`,
      { ...request, stream: true, stream_options: { include_usage: true } },
      { 'x-gateway-provider': 'anthropic', authorization: 'Bearer k' },
    );
    expect(raw.done).toBe(true);
    const deltas = raw.events.flatMap((e) => e.choices.map((c: any) => c.delta));
    expect(deltas.filter((d) => d.reasoning_content).map((d) => d.reasoning_content)).toEqual([
      'The user wants the weather in Paris. ',
      'I should call get_weather with city Paris.',
    ]);
    expect(deltas.every((d) => !(d.content && d.reasoning_content))).toBe(true);
    expect(withParsedArguments(assembleChat(raw.events))).toEqual(withParsedArguments(comparable(whole)));
    expect(fake.received('POST /v1/messages').at(-1)!.json().thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
  });

  for (const stream of [false, true]) {
    it(`keeps thinking blocks and tool ids over a three-turn tool-use conversation${stream ? ' (streamed)' : ''}`, async () => {
      await threeTurns(
        {
          provider: 'anthropic',
          model: CLAUDE,
          route: () => 'POST /v1/messages',
          replies: stream
            ? [sse('anthropic', 'thinking'), sse('anthropic', 'thinking-final'), sse('anthropic', 'thinking-final')]
            : [{ json: fixtureJson('anthropic', 'thinking') }, { json: fixtureJson('anthropic', 'thinking-final') }, { json: fixtureJson('anthropic', 'thinking-final') }],
          checkReplayed(body) {
            const fixture = fixtureJson('anthropic', 'thinking');
            expect(body.messages[1]).toEqual({ role: 'assistant', content: fixture.content.map((b: any) => (b.type === 'tool_use' ? { ...b, input: { city: 'Paris' } } : b)) });
            expect(body.messages[2]).toEqual({
              role: 'user',
              content: [{ type: 'tool_result', tool_use_id: 'toolu_01A09q90qw90lq917835lq9', content: '{"temperature_c":18,"sky":"sunny"}' }],
            });
            expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: 8192 });
            expect(body.max_tokens).toBe(12000);
          },
        },
        stream,
      );
    });
  }

  it('puts cache_control on the system, user and tool blocks it was set on', async () => {
    fake.on('POST /v1/messages', { json: fixtureJson('anthropic', 'thinking-final') });
    const answer: any = await client('anthropic').chat.completions.create({
      model: CLAUDE,
      messages: [
        { role: 'system', content: [{ type: 'text', text: 'A long shared prompt.', cache_control: { type: 'ephemeral' } } as any] },
        { role: 'user', content: [{ type: 'text', text: 'A long document.', cache_control: { type: 'ephemeral', ttl: '1h' } } as any, { type: 'text', text: 'Question?' }] },
        { role: 'user', content: 'Follow-up', cache_control: { type: 'ephemeral' } } as any,
      ],
      tools: [{ ...WEATHER, cache_control: { type: 'ephemeral' } } as any],
    });
    const sent = fake.received('POST /v1/messages').at(-1)!.json();
    expect(sent.system).toEqual([{ type: 'text', text: 'A long shared prompt.', cache_control: { type: 'ephemeral' } }]);
    expect(sent.messages[0].content).toEqual([
      { type: 'text', text: 'A long document.', cache_control: { type: 'ephemeral', ttl: '1h' } },
      { type: 'text', text: 'Question?' },
    ]);
    // a message-level breakpoint marks the message's last block
    expect(sent.messages[1].content).toEqual([{ type: 'text', text: 'Follow-up', cache_control: { type: 'ephemeral' } }]);
    expect(sent.tools[0].cache_control).toEqual({ type: 'ephemeral' });
    expect(answer.usage.prompt_tokens_details).toEqual({ cached_tokens: 1024, cache_write_tokens: 120 });
    expect(answer.usage.prompt_tokens).toBe(640 + 120 + 1024);
  });
});

describe('gemini thought parts and signatures through chat', () => {
  const route = (stream: boolean) => `POST /v1beta/models/gemini-2.5-flash:${stream ? 'streamGenerateContent' : 'generateContent'}`;

  it('answers thought parts as reasoning, a call signature on the tool call, thoughtsTokenCount as reasoning tokens; reasoning_effort sets thinkingConfig', async () => {
    fake.on(route(false), { json: fixtureJson('google', 'thinking-tools') });
    const answer: any = await client('google').chat.completions.create({
      model: 'gemini-2.5-flash',
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      tools: [WEATHER],
      reasoning_effort: 'high',
    });
    expect(fake.received(route(false)).at(-1)!.json().generationConfig).toEqual({ thinkingConfig: { thinkingBudget: 16384, includeThoughts: true } });
    const message = answer.choices[0].message;
    expect(message.reasoning_content).toBe('I need the weather for Paris, so I will call get_weather.');
    expect(message.thinking_blocks).toEqual([{ type: 'thinking', thinking: 'I need the weather for Paris, so I will call get_weather.' }]);
    const signature = fixtureJson('google', 'thinking-tools').candidates[0].content.parts[1].thoughtSignature;
    expect(message.tool_calls[0]).toEqual({
      id: 'call_0',
      type: 'function',
      function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
      extra_content: { google: { thought_signature: signature } },
    });
    expect(answer.usage).toEqual({
      prompt_tokens: 40,
      completion_tokens: 42,
      total_tokens: 82,
      prompt_tokens_details: { cached_tokens: 16 },
      completion_tokens_details: { reasoning_tokens: 30 },
    });

    fake.on(route(true), sse('google', 'thinking-tools'));
    const raw = await postStream(
      `${gw.url}/v1/chat/completions`,
      { model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'Weather in Paris?' }], tools: [WEATHER], stream: true, stream_options: { include_usage: true } },
      { 'x-gateway-provider': 'google', authorization: 'Bearer k' },
    );
    expect(assembleChat(raw.events)).toEqual(comparable(answer));
  });

  it('gemini-3 models get a thinking level', async () => {
    fake.on('POST /v1beta/models/gemini-3-pro-preview:generateContent', { json: fixtureJson('google', 'thinking-final') });
    await client('google').chat.completions.create({ model: 'gemini-3-pro-preview', messages: [{ role: 'user', content: 'Hi' }], reasoning_effort: 'low' });
    expect(fake.received('POST /v1beta/models/gemini-3-pro-preview:generateContent').at(-1)!.json().generationConfig).toEqual({
      thinkingConfig: { thinkingLevel: 'low', includeThoughts: true },
    });
  });

  for (const stream of [false, true]) {
    it(`sends thought parts and signatures back on the parts they came with over three turns${stream ? ' (streamed)' : ''}`, async () => {
      const final = fixtureJson('google', 'thinking-final');
      await threeTurns(
        {
          provider: 'google',
          model: 'gemini-2.5-flash',
          route,
          replies: stream
            ? [sse('google', 'thinking-tools'), sse('google', 'thinking-final'), sse('google', 'thinking-final')]
            : [{ json: fixtureJson('google', 'thinking-tools') }, { json: final }, { json: final }],
          checkReplayed(body, turn) {
            const parts = fixtureJson('google', 'thinking-tools').candidates[0].content.parts;
            expect(body.contents[1]).toEqual({ role: 'model', parts: [{ text: parts[0].text, thought: true }, parts[1]] });
            expect(body.contents[2]).toEqual({ role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { temperature_c: 18, sky: 'sunny' } } }] });
            if (turn === 3) {
              // the text part's signature goes back on the text part
              expect(body.contents[3]).toEqual({
                role: 'model',
                parts: [{ text: 'It is 18°C and sunny in Paris.', thoughtSignature: final.candidates[0].content.parts[0].thoughtSignature }],
              });
            }
            expect(body.generationConfig.thinkingConfig).toEqual({ thinkingBudget: 8192, includeThoughts: true });
          },
        },
        stream,
      );
    });
  }
});

describe('vertex-ai shares the Gemini reasoning mapping', () => {
  const VERTEX = { 'x-gateway-vertex-project-id': 'acme-reasoning', 'x-gateway-vertex-region': 'us-east5' };
  const route = (stream: boolean) =>
    `POST /v1/projects/acme-reasoning/locations/us-east5/publishers/google/models/gemini-2.5-flash:${stream ? 'streamGenerateContent' : 'generateContent'}`;
  for (const stream of [false, true]) {
    it(`keeps thought parts and signatures over three turns${stream ? ' (streamed)' : ''}`, async () => {
      const final = fixtureJson('google', 'thinking-final');
      await threeTurns(
        {
          provider: 'vertex-ai',
          headers: VERTEX,
          model: 'gemini-2.5-flash',
          route,
          replies: stream
            ? [sse('google', 'thinking-tools'), sse('google', 'thinking-final'), sse('google', 'thinking-final')]
            : [{ json: fixtureJson('google', 'thinking-tools') }, { json: final }, { json: final }],
          checkReplayed(body) {
            const parts = fixtureJson('google', 'thinking-tools').candidates[0].content.parts;
            expect(body.contents[1]).toEqual({ role: 'model', parts: [{ text: parts[0].text, thought: true }, parts[1]] });
            expect(body.generationConfig.thinkingConfig).toEqual({ thinkingBudget: 8192, includeThoughts: true });
          },
        },
        stream,
      );
    });
  }
});

describe('bedrock reasoning content through chat', () => {
  const path = (stream: boolean) => `POST /model/${encodeURIComponent(BEDROCK_CLAUDE)}/${stream ? 'converse-stream' : 'converse'}`;

  it('answers reasoningContent as thinking blocks (signature, redacted bytes), cache reads as cached tokens; reasoning_effort sets Claude thinking', async () => {
    fake.on(path(false), { json: fixtureJson('bedrock', 'thinking') });
    const answer: any = await client('bedrock', AWS).chat.completions.create({
      model: BEDROCK_CLAUDE,
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      tools: [WEATHER],
      reasoning_effort: 'minimal',
    });
    const sent = fake.received(path(false)).at(-1)!.json();
    expect(sent.additionalModelRequestFields).toEqual({ thinking: { type: 'enabled', budget_tokens: 1024 } });
    expect(sent.inferenceConfig).toEqual({ maxTokens: 1024 + 4096 });
    const message = answer.choices[0].message;
    expect(message.reasoning_content).toBe('The user wants the weather in Paris. I will call get_weather.');
    const content = fixtureJson('bedrock', 'thinking').output.message.content;
    expect(message.thinking_blocks).toEqual([
      { type: 'thinking', thinking: content[0].reasoningContent.reasoningText.text, signature: content[0].reasoningContent.reasoningText.signature },
      { type: 'redacted_thinking', data: content[1].reasoningContent.redactedContent },
    ]);
    expect(answer.usage).toEqual({ prompt_tokens: 800, completion_tokens: 90, total_tokens: 890, prompt_tokens_details: { cached_tokens: 500 } });
  });

  it('streams the same answer, whether metadata comes before messageStop or not at all', async () => {
    fake.on(path(false), { json: fixtureJson('bedrock', 'thinking') });
    const request = { model: BEDROCK_CLAUDE, messages: [{ role: 'user', content: 'Weather in Paris?' }], tools: [WEATHER] };
    const whole: any = await client('bedrock', AWS).chat.completions.create(request as any);
    fake.on(path(true), eventStreamReply('bedrock', 'thinking.events'));
    const raw = await postStream(
      `${gw.url}/v1/chat/completions`,
      { ...request, stream: true, stream_options: { include_usage: true } },
      { 'x-gateway-provider': 'bedrock', ...AWS },
    );
    expect(raw.done).toBe(true);
    const reassembled = assembleChat(raw.events);
    expect(withParsedArguments({ ...reassembled, id: whole.id })).toEqual(withParsedArguments(comparable(whole)));
    expect(reassembled.choices[0].finish_reason).toBe('tool_calls');

    // no metadata event at all: still complete, with its finish reason
    fake.on(path(true), eventStreamReply('bedrock', 'thinking-final.events'));
    const noMetadata = await postStream(`${gw.url}/v1/chat/completions`, { ...request, stream: true }, { 'x-gateway-provider': 'bedrock', ...AWS });
    expect(noMetadata.done).toBe(true);
    expect(assembleChat(noMetadata.events).choices[0]).toMatchObject({ finish_reason: 'stop', message: { content: 'It is 18°C and sunny in Paris.' } });
  });

  for (const stream of [false, true]) {
    it(`sends reasoningContent back with its signature and the tool use id over three turns${stream ? ' (streamed)' : ''}`, async () => {
      await threeTurns(
        {
          provider: 'bedrock',
          headers: AWS,
          model: BEDROCK_CLAUDE,
          route: path,
          replies: stream
            ? [eventStreamReply('bedrock', 'thinking.events'), eventStreamReply('bedrock', 'thinking-final.events'), eventStreamReply('bedrock', 'thinking-final.events')]
            : [{ json: fixtureJson('bedrock', 'thinking') }, { json: fixtureJson('bedrock', 'thinking-final') }, { json: fixtureJson('bedrock', 'thinking-final') }],
          checkReplayed(body) {
            const content = fixtureJson('bedrock', 'thinking').output.message.content;
            expect(body.messages[1]).toEqual({ role: 'assistant', content });
            expect(body.messages[2]).toEqual({
              role: 'user',
              content: [{ toolResult: { toolUseId: 'tooluse_Pw3cXqPxRkqFdH6lRKXwAA', content: [{ text: '{"temperature_c":18,"sky":"sunny"}' }] } }],
            });
            expect(body.additionalModelRequestFields).toEqual({ thinking: { type: 'enabled', budget_tokens: 8192 } });
            expect(body.inferenceConfig).toEqual({ maxTokens: 12000 });
          },
        },
        stream,
      );
    });
  }

  it('turns cache_control into cachePoint blocks in system, messages and tools', async () => {
    fake.on(path(false), { json: fixtureJson('bedrock', 'thinking-final') });
    await client('bedrock', AWS).chat.completions.create({
      model: BEDROCK_CLAUDE,
      messages: [
        { role: 'system', content: [{ type: 'text', text: 'Shared prompt.', cache_control: { type: 'ephemeral' } } as any, { type: 'text', text: 'Tail.' }] },
        { role: 'user', content: [{ type: 'text', text: 'Long document.', cache_control: { type: 'ephemeral' } } as any, { type: 'text', text: 'Question?' }] },
      ],
      tools: [{ ...WEATHER, cache_control: { type: 'ephemeral' } } as any],
    });
    const sent = fake.received(path(false)).at(-1)!.json();
    expect(sent.system).toEqual([{ text: 'Shared prompt.' }, { cachePoint: { type: 'default' } }, { text: 'Tail.' }]);
    expect(sent.messages[0].content).toEqual([{ text: 'Long document.' }, { cachePoint: { type: 'default' } }, { text: 'Question?' }]);
    expect(sent.toolConfig.tools).toEqual([
      { toolSpec: { name: 'get_weather', description: 'Weather of a city', inputSchema: { json: WEATHER.function.parameters } } },
      { cachePoint: { type: 'default' } },
    ]);
  });
});

describe('OpenAI-compatible reasoning', () => {
  it('deepseek: reasoning_content passes through (whole and streamed) and goes back over three turns; thinking_blocks never go upstream', async () => {
    const route = 'POST /chat/completions';
    await threeTurns(
      {
        provider: 'deepseek',
        model: 'deepseek-reasoner',
        route: () => route,
        replies: [
          { json: fixtureJson('deepseek', 'reasoning') },
          {
            json: {
              ...fixtureJson('deepseek', 'reasoning'),
              choices: [{ index: 0, message: { role: 'assistant', content: 'It is 18°C in Paris.', reasoning_content: 'Done.' }, finish_reason: 'stop' }],
            },
          },
          {
            json: {
              ...fixtureJson('deepseek', 'reasoning'),
              choices: [{ index: 0, message: { role: 'assistant', content: 'Still 18°C tomorrow.', reasoning_content: 'Guess.' }, finish_reason: 'stop' }],
            },
          },
        ],
        checkReplayed(body) {
          expect(body.messages[1]).toMatchObject({ role: 'assistant', reasoning_content: 'Paris weather needs the tool.', tool_calls: [{ id: 'call_00_ds8qweather' }] });
          expect(JSON.stringify(body)).not.toContain('thinking_blocks');
          expect(body.reasoning_effort).toBe('medium');
        },
      },
      false,
    );
    fake.on(route, sse('deepseek', 'reasoning'));
    const raw = await postStream(
      `${gw.url}/v1/chat/completions`,
      { model: 'deepseek-reasoner', messages: [{ role: 'user', content: 'Weather?' }], stream: true },
      { 'x-gateway-provider': 'deepseek', authorization: 'Bearer k' },
    );
    expect(assembleChat(raw.events).choices[0].message).toMatchObject({ reasoning_content: 'Paris weather needs the tool.', tool_calls: [{ id: 'call_00_ds8qweather' }] });
  });

  it('groq: `reasoning` becomes reasoning_content in answers and deltas; other answers pass through byte for byte', async () => {
    fake.on('POST /groq/chat/completions', { json: fixtureJson('groq', 'reasoning') });
    const answer: any = await client('groq').chat.completions.create({ model: 'qwen/qwen3-32b', messages: [{ role: 'user', content: 'Capital of France?' }] });
    expect(answer.choices[0].message).toEqual({
      role: 'assistant',
      content: 'Paris is the capital of France.',
      reasoning_content: 'The user asks for the capital of France; it is Paris.',
    });
    fake.on('POST /groq/chat/completions', sse('groq', 'reasoning'));
    const raw = await postStream(
      `${gw.url}/v1/chat/completions`,
      { model: 'qwen/qwen3-32b', messages: [{ role: 'user', content: 'Capital of France?' }], stream: true },
      { 'x-gateway-provider': 'groq', authorization: 'Bearer k' },
    );
    expect(raw.events.some((e) => e.choices?.[0]?.delta?.reasoning !== undefined)).toBe(false);
    expect(assembleChat(raw.events).choices[0].message).toEqual({ ...answer.choices[0].message, refusal: null });
    // an answer without reasoning is the upstream's bytes
    const plain = {
      id: 'chatcmpl-plain',
      object: 'chat.completion',
      created: 1,
      model: 'llama',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hi' }, finish_reason: 'stop' }],
      x_groq: { id: 'req_x' },
    };
    fake.on('POST /groq/chat/completions', { raw: JSON.stringify(plain), headers: { 'content-type': 'application/json' } });
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-gateway-provider': 'groq', authorization: 'Bearer k' },
      body: JSON.stringify({ model: 'llama', messages: [{ role: 'user', content: 'Hi' }] }),
    });
    expect(await res.text()).toBe(JSON.stringify(plain));
  });
});

describe('upstream headers', () => {
  it("anthropic: request-id becomes x-request-id (the SDK's _request_id), its rate limits OpenAI's names, nothing else passes", async () => {
    const reset = new Date(Date.now() + 30_000).toISOString();
    fake.on('POST /v1/messages', {
      json: fixtureJson('anthropic', 'thinking-final'),
      headers: {
        'request-id': 'req_011CSHoEeqs5C35K2UUqR7Fy',
        'anthropic-ratelimit-requests-limit': '50',
        'anthropic-ratelimit-requests-remaining': '49',
        'anthropic-ratelimit-requests-reset': reset,
        'anthropic-ratelimit-tokens-limit': '40000',
        'anthropic-ratelimit-tokens-remaining': '39000',
        'anthropic-ratelimit-tokens-reset': reset,
        'anthropic-organization-id': 'org-secret-ish',
        'x-envoy-upstream-service-time': '12',
      },
    });
    const { data, response, request_id } = await client('anthropic')
      .chat.completions.create({ model: CLAUDE, messages: [{ role: 'user', content: 'Hi' }] })
      .withResponse();
    expect(request_id).toBe('req_011CSHoEeqs5C35K2UUqR7Fy');
    expect((data as any)._request_id).toBe('req_011CSHoEeqs5C35K2UUqR7Fy');
    expect(response.headers.get('x-ratelimit-limit-requests')).toBe('50');
    expect(response.headers.get('x-ratelimit-remaining-requests')).toBe('49');
    expect(response.headers.get('x-ratelimit-limit-tokens')).toBe('40000');
    expect(response.headers.get('x-ratelimit-remaining-tokens')).toBe('39000');
    expect(response.headers.get('x-ratelimit-reset-requests')).toMatch(/^(29|30)s$/);
    expect(response.headers.get('x-ratelimit-reset-tokens')).toMatch(/^(29|30)s$/);
    expect(response.headers.get('anthropic-organization-id')).toBeNull();
    expect(response.headers.get('x-envoy-upstream-service-time')).toBeNull();
    expect(response.headers.get('request-id')).toBeNull();
  });

  it('openai: x-request-id, rate limits, openai-processing-ms pass on answers, streams and errors', async () => {
    const headers = {
      'x-request-id': 'req_abc123',
      'openai-processing-ms': '321',
      'x-ratelimit-limit-requests': '10000',
      'x-ratelimit-remaining-requests': '9999',
      'x-ratelimit-reset-requests': '6ms',
      'openai-organization': 'org-hidden',
    };
    fake.on('POST /oai/chat/completions', { json: fixtureJson('openai', 'chat'), headers });
    const { response, request_id } = await client('openai')
      .chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }] })
      .withResponse();
    expect(request_id).toBe('req_abc123');
    expect(response.headers.get('openai-processing-ms')).toBe('321');
    expect(response.headers.get('x-ratelimit-reset-requests')).toBe('6ms');
    expect(response.headers.get('openai-organization')).toBeNull();

    fake.on('POST /oai/chat/completions', { chunks: fixtureChunks('openai', 'chat'), headers: { 'content-type': 'text/event-stream', ...headers } });
    const streamed = await client('openai')
      .chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }], stream: true })
      .withResponse();
    expect(streamed.request_id).toBe('req_abc123');
    for await (const _ of streamed.data) {
      // drain
    }

    fake.on('POST /oai/chat/completions', {
      json: { error: { message: 'Slow down', type: 'requests', code: 'rate_limit_exceeded' } },
      status: 429,
      headers: { ...headers, 'retry-after': '7' },
    });
    const err: any = await client('openai')
      .chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }] })
      .catch((e) => e);
    expect(err.status).toBe(429);
    expect(err.requestID).toBe('req_abc123');
    expect(err.headers.get('retry-after')).toBe('7');
    expect(err.headers.get('x-ratelimit-remaining-requests')).toBe('9999');
  });

  it('bedrock: x-amzn-requestid becomes x-request-id', async () => {
    fake.on(`POST /model/${encodeURIComponent(BEDROCK_CLAUDE)}/converse`, {
      json: fixtureJson('bedrock', 'thinking-final'),
      headers: { 'x-amzn-requestid': '8a1e7c56-0000-4000-8000-1234567890ab' },
    });
    const { request_id } = await client('bedrock', AWS)
      .chat.completions.create({ model: BEDROCK_CLAUDE, messages: [{ role: 'user', content: 'Hi' }] })
      .withResponse();
    expect(request_id).toBe('8a1e7c56-0000-4000-8000-1234567890ab');
  });
});

describe('stream sanity', () => {
  it('anthropic: a second message_start inside an open message ends the stream with an error, never a tool call with broken arguments', async () => {
    fake.on('POST /v1/messages', sse('anthropic', 'double-start'));
    const raw = await postStream(
      `${gw.url}/v1/chat/completions`,
      { model: CLAUDE, messages: [{ role: 'user', content: 'Weather?' }], tools: [WEATHER], stream: true },
      { 'x-gateway-provider': 'anthropic', authorization: 'Bearer k' },
    );
    expect(raw.done).toBe(false);
    expect(raw.events.at(-1)).toMatchObject({ status: 'failure', error: { code: 'provider_error', provider: 'anthropic' } });
    expect(raw.events.some((e) => e.choices?.[0]?.finish_reason === 'tool_calls')).toBe(false);
  });

  it('openai chunks of a reasoning model are written as they came', async () => {
    const chunks = [
      { id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'o4-mini', choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] },
      { id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'o4-mini', choices: [{ index: 0, delta: { content: 'Hi' }, finish_reason: 'stop' }] },
      {
        id: 'c1',
        object: 'chat.completion.chunk',
        created: 1,
        model: 'o4-mini',
        choices: [],
        usage: { prompt_tokens: 5, completion_tokens: 70, total_tokens: 75, completion_tokens_details: { reasoning_tokens: 64 }, prompt_tokens_details: { cached_tokens: 0 } },
      },
    ];
    fake.on('POST /oai/chat/completions', { chunks: sseChunks(chunks), headers: { 'content-type': 'text/event-stream' } });
    const raw = await postStream(
      `${gw.url}/v1/chat/completions`,
      { model: 'o4-mini', messages: [{ role: 'user', content: 'Hi' }], stream: true },
      { 'x-gateway-provider': 'openai', authorization: 'Bearer k' },
    );
    expect(raw.events).toEqual(chunks);
  });
});
