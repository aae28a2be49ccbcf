import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { request } from 'undici';
import { FakeUpstream, type FakeReply } from '../../../../helpers/fake-upstream.js';
import { startGateway, type TestGateway } from '../../../../helpers/start-gateway.js';
import { fixtureChunks, fixtureJson } from '../../../../helpers/fixtures.js';
import { assembleChat, comparable, postStream } from '../../../../helpers/chat-stream.js';

const KEY = 'AIzaSyTestKey-0123456789abcdef';
const MODEL_PATH = '/v1beta/models/gemini-2.0-flash';

/** Answers generateContent with `name`.json and streamGenerateContent with `name`.chunks.txt. */
function geminiRoutes(upstream: FakeUpstream, model: string, name: string): void {
  upstream.on(`POST /v1beta/models/${model}:generateContent`, { json: fixtureJson('google', name) });
  upstream.on(`POST /v1beta/models/${model}:streamGenerateContent`, { chunks: fixtureChunks('google', name), headers: { 'content-type': 'text/event-stream' } });
}

describe('google (Gemini API) through the gateway', () => {
  let upstream: FakeUpstream;
  let gw: TestGateway;
  let client: OpenAI;
  const headers = { 'x-gateway-provider': 'google', authorization: `Bearer ${KEY}` };

  beforeAll(async () => {
    upstream = await new FakeUpstream().start();
    gw = await startGateway({ providers: { google: { baseUrl: upstream.url } } });
    client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: KEY, defaultHeaders: { 'x-gateway-provider': 'google' }, maxRetries: 0 });
  });
  afterAll(async () => {
    await gw?.close();
    await upstream?.stop();
  });

  it('translates a chat request into generateContent and the answer into a chat.completion', async () => {
    geminiRoutes(upstream, 'gemini-2.0-flash', 'chat');
    const answer = await client.chat.completions.create({
      model: 'gemini-2.0-flash',
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'developer', content: [{ type: 'text', text: 'Answer in English.' }] },
        { role: 'user', content: 'What is the capital of France?' },
      ],
      temperature: 0.3,
      top_p: 0.9,
      max_tokens: 200,
      stop: 'END',
      seed: 7,
      presence_penalty: 0.5,
      frequency_penalty: 0.25,
      user: 'someone',
    });
    const sent = upstream.received(`POST ${MODEL_PATH}:generateContent`).at(-1)!;
    expect(sent.url).toBe(`${MODEL_PATH}:generateContent`);
    expect(sent.headers['x-goog-api-key']).toBe(KEY);
    expect(sent.headers.authorization).toBeUndefined();
    expect(sent.headers['x-gateway-provider']).toBeUndefined();
    expect(sent.json()).toEqual({
      contents: [{ role: 'user', parts: [{ text: 'What is the capital of France?' }] }],
      systemInstruction: { parts: [{ text: 'You are terse.' }, { text: 'Answer in English.' }] },
      generationConfig: { temperature: 0.3, topP: 0.9, maxOutputTokens: 200, stopSequences: ['END'], seed: 7, presencePenalty: 0.5, frequencyPenalty: 0.25 },
    });
    expect(answer).toEqual({
      id: 'chatcmpl-kF3pZ8yHOrGFz7IP2d6xsQk',
      object: 'chat.completion',
      created: expect.any(Number),
      model: 'gemini-2.0-flash',
      choices: [
        { index: 0, message: { role: 'assistant', content: 'The capital of France is Paris. It sits on the Seine.', refusal: null }, logprobs: null, finish_reason: 'stop' },
      ],
      usage: { prompt_tokens: 9, completion_tokens: 12, total_tokens: 21 },
    });
  });

  it('sends images inline (data URLs) or by reference (http URLs), and tool history as functionCall / functionResponse', async () => {
    geminiRoutes(upstream, 'gemini-2.0-flash', 'chat');
    await client.chat.completions.create({
      model: 'gemini-2.0-flash',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Compare these and check the weather.' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
            { type: 'image_url', image_url: { url: 'https://example.com/photos/tower.jpg?size=large' } },
          ],
        },
        {
          role: 'assistant',
          content: 'Checking.',
          tool_calls: [
            { id: 'call_0', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
            { id: 'call_1', type: 'function', function: { name: 'get_local_time', arguments: '{"timezone":"Europe/Paris"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '14:05' },
        { role: 'tool', tool_call_id: 'call_0', content: '{"temperature":21,"sky":"clear"}' },
        { role: 'user', content: 'Thanks. And tomorrow?' },
      ],
    });
    const body = upstream.received(`POST ${MODEL_PATH}:generateContent`).at(-1)!.json();
    expect(body.contents).toEqual([
      {
        role: 'user',
        parts: [
          { text: 'Compare these and check the weather.' },
          { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } },
          { fileData: { mimeType: 'image/jpeg', fileUri: 'https://example.com/photos/tower.jpg?size=large' } },
        ],
      },
      {
        role: 'model',
        parts: [
          { text: 'Checking.' },
          { functionCall: { name: 'get_weather', args: { city: 'Paris' } } },
          { functionCall: { name: 'get_local_time', args: { timezone: 'Europe/Paris' } } },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'get_local_time', response: { content: '14:05' } } },
          { functionResponse: { name: 'get_weather', response: { temperature: 21, sky: 'clear' } } },
          { text: 'Thanks. And tomorrow?' },
        ],
      },
    ]);
    expect(body.systemInstruction).toBeUndefined();
  });

  it('converts tools to function declarations Gemini accepts, tool_choice to toolConfig, response formats to generationConfig', async () => {
    geminiRoutes(upstream, 'gemini-2.0-flash', 'chat');
    await client.chat.completions.create({
      model: 'gemini-2.0-flash',
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      tools: [
        {
          type: 'function',
          function: {
            name: 'get_weather',
            description: 'Current weather for a city',
            strict: true,
            parameters: {
              $schema: 'http://json-schema.org/draft-07/schema#',
              type: 'object',
              additionalProperties: false,
              properties: {
                city: { type: 'string', description: 'City name', examples: ['Paris'] },
                unit: { type: ['string', 'null'], enum: ['celsius', 'fahrenheit', null], default: 'celsius' },
                when: { type: 'string', format: 'date-time' },
                email: { type: 'string', format: 'email' },
                place: { $ref: '#/definitions/Place' },
              },
              required: ['city', 'ghost'],
              definitions: { Place: { type: 'object', properties: { lat: { type: 'number' }, lon: { type: 'number' } }, required: ['lat'] } },
            },
          },
        },
        { type: 'function', function: { name: 'ping', parameters: { type: 'object', properties: {} } } },
      ],
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
      response_format: {
        type: 'json_schema',
        json_schema: {
          name: 'weather',
          schema: { type: 'object', properties: { summary: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } } }, additionalProperties: false },
        },
      },
    });
    const body = upstream.received(`POST ${MODEL_PATH}:generateContent`).at(-1)!.json();
    expect(body.tools).toEqual([
      {
        functionDeclarations: [
          {
            name: 'get_weather',
            description: 'Current weather for a city',
            parameters: {
              type: 'object',
              properties: {
                city: { type: 'string', description: 'City name' },
                unit: { type: 'string', nullable: true, enum: ['celsius', 'fahrenheit'] },
                when: { type: 'string', format: 'date-time' },
                email: { type: 'string' },
                place: { type: 'object', properties: { lat: { type: 'number' }, lon: { type: 'number' } }, required: ['lat'] },
              },
              required: ['city'],
            },
          },
          { name: 'ping' },
        ],
      },
    ]);
    expect(body.toolConfig).toEqual({ functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['get_weather'] } });
    expect(body.generationConfig).toEqual({
      responseMimeType: 'application/json',
      responseSchema: { type: 'object', properties: { summary: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } } } },
    });

    for (const [choice, config] of [
      ['auto', { mode: 'AUTO' }],
      ['none', { mode: 'NONE' }],
      ['required', { mode: 'ANY' }],
    ] as const) {
      await client.chat.completions.create({
        model: 'gemini-2.0-flash',
        messages: [{ role: 'user', content: 'Hi' }],
        tools: [{ type: 'function', function: { name: 'ping' } }],
        tool_choice: choice,
        response_format: { type: 'json_object' },
        n: 1,
      });
      const sent = upstream.received(`POST ${MODEL_PATH}:generateContent`).at(-1)!.json();
      expect(sent.toolConfig).toEqual({ functionCallingConfig: config });
      expect(sent.generationConfig).toEqual({ responseMimeType: 'application/json', candidateCount: 1 });
    }
  });

  it('maps function calls to tool_calls with stable ids and finish_reason tool_calls', async () => {
    geminiRoutes(upstream, 'gemini-2.5-flash', 'tools');
    const answer = await client.chat.completions.create({
      model: 'gemini-2.5-flash',
      messages: [{ role: 'user', content: 'Weather in Paris and Tokyo, and the time in Tokyo?' }],
      tools: [
        { type: 'function', function: { name: 'get_weather' } },
        { type: 'function', function: { name: 'get_local_time' } },
      ],
    });
    expect(answer.choices[0]).toEqual({
      index: 0,
      message: {
        role: 'assistant',
        content: "I'll look up both cities.",
        refusal: null,
        tool_calls: [
          { id: 'call_0', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris","unit":"celsius"}' } },
          { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Tokyo","unit":"celsius"}' } },
          { id: 'call_2', type: 'function', function: { name: 'get_local_time', arguments: '{"timezone":"Asia/Tokyo"}' } },
        ],
      },
      logprobs: null,
      finish_reason: 'tool_calls',
    });
    expect(answer.usage).toEqual({ prompt_tokens: 61, completion_tokens: 34, total_tokens: 95 });
  });

  it('streams text as chat chunks that reassemble to the non-streamed answer, usage included', async () => {
    geminiRoutes(upstream, 'gemini-2.0-flash', 'chat');
    const request = { model: 'gemini-2.0-flash', messages: [{ role: 'user', content: 'What is the capital of France?' }] };
    const whole = await client.chat.completions.create(request as any);
    const raw = await postStream(`${gw.url}/v1/chat/completions`, { ...request, stream: true, stream_options: { include_usage: true } }, headers);
    expect(raw.status).toBe(200);
    expect(raw.headers['content-type']).toContain('text/event-stream');
    expect(raw.done).toBe(true);
    const sent = upstream.received(`POST ${MODEL_PATH}:streamGenerateContent`).at(-1)!;
    expect(sent.url).toBe(`${MODEL_PATH}:streamGenerateContent?alt=sse`);
    expect(sent.json()).toEqual({ contents: [{ role: 'user', parts: [{ text: 'What is the capital of France?' }] }] });
    expect(raw.events.filter((e) => e.choices[0]?.delta?.content).map((e) => e.choices[0].delta.content)).toEqual([
      'The capital',
      ' of France is Paris.',
      ' It sits on the Seine.',
    ]);
    expect(raw.events.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 9, completion_tokens: 12, total_tokens: 21 } });
    expect(assembleChat(raw.events)).toEqual(comparable(whole));

    // and through the SDK
    const stream = (await client.chat.completions.create({ ...(request as any), stream: true })) as unknown as AsyncIterable<any>;
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).toBe(whole.choices[0]!.message.content);
  });

  it('streams several function calls arriving in different chunks after text, keeping OpenAI delta rules', async () => {
    geminiRoutes(upstream, 'gemini-2.5-flash', 'tools');
    const request = {
      model: 'gemini-2.5-flash',
      messages: [{ role: 'user', content: 'Weather in Paris and Tokyo, and the time in Tokyo?' }],
      tools: [
        { type: 'function', function: { name: 'get_weather' } },
        { type: 'function', function: { name: 'get_local_time' } },
      ],
    };
    const whole = await client.chat.completions.create(request as any);
    const raw = await postStream(`${gw.url}/v1/chat/completions`, { ...request, stream: true, stream_options: { include_usage: true } }, headers);
    expect(raw.done).toBe(true);
    const toolDeltas = raw.events.flatMap((e) => e.choices.flatMap((c: any) => c.delta?.tool_calls ?? []));
    expect(toolDeltas).toEqual([
      { index: 0, id: 'call_0', type: 'function', function: { name: 'get_weather', arguments: '' } },
      { index: 0, function: { arguments: '{"city":"Paris","unit":"celsius"}' } },
      { index: 1, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '' } },
      { index: 1, function: { arguments: '{"city":"Tokyo","unit":"celsius"}' } },
      { index: 2, id: 'call_2', type: 'function', function: { name: 'get_local_time', arguments: '' } },
      { index: 2, function: { arguments: '{"timezone":"Asia/Tokyo"}' } },
    ]);
    // text came before the first call
    const firstText = raw.events.findIndex((e) => e.choices[0]?.delta?.content);
    const firstCall = raw.events.findIndex((e) => e.choices[0]?.delta?.tool_calls);
    expect(firstText).toBeGreaterThanOrEqual(0);
    expect(firstText).toBeLessThan(firstCall);
    expect(raw.events.filter((e) => e.choices[0]?.finish_reason).map((e) => e.choices[0].finish_reason)).toEqual(['tool_calls']);
    expect(assembleChat(raw.events)).toEqual(comparable(whole));

    // the SDK's stream helper reassembles the same calls
    const runner = client.chat.completions.stream(request as any);
    const final = await runner.finalChatCompletion();
    expect(final.choices[0]!.message.tool_calls).toEqual(whole.choices[0]!.message.tool_calls);
    expect(final.choices[0]!.finish_reason).toBe('tool_calls');
  });

  it('answers n candidates as n choices, streamed and not', async () => {
    geminiRoutes(upstream, 'gemini-2.0-flash', 'candidates');
    const request = { model: 'gemini-2.0-flash', messages: [{ role: 'user', content: 'Flip a coin.' }], n: 2 };
    const whole = await client.chat.completions.create(request as any);
    expect(upstream.received(`POST ${MODEL_PATH}:generateContent`).at(-1)!.json().generationConfig).toEqual({ candidateCount: 2 });
    expect(whole.choices.map((c) => [c.message.content, c.finish_reason])).toEqual([
      ['Heads.', 'stop'],
      ['Tails, and that is final.', 'length'],
    ]);
    const raw = await postStream(`${gw.url}/v1/chat/completions`, { ...request, stream: true, stream_options: { include_usage: true } }, headers);
    expect(raw.done).toBe(true);
    expect(assembleChat(raw.events)).toEqual(comparable(whole));
  });

  it('maps MAX_TOKENS to length, gives thought parts as reasoning and counts thinking as reasoning tokens', async () => {
    geminiRoutes(upstream, 'gemini-2.0-flash', 'max-tokens');
    const cut = await client.chat.completions.create({ model: 'gemini-2.0-flash', messages: [{ role: 'user', content: 'Tell a story' }], max_completion_tokens: 10 });
    expect(cut.choices[0]!.finish_reason).toBe('length');
    expect(upstream.received(`POST ${MODEL_PATH}:generateContent`).at(-1)!.json().generationConfig).toEqual({ maxOutputTokens: 10 });

    geminiRoutes(upstream, 'gemini-2.5-pro', 'thinking');
    const thought = await client.chat.completions.create({ model: 'gemini-2.5-pro', messages: [{ role: 'user', content: 'The answer?' }] });
    expect(thought.choices[0]!.message.content).toBe('42');
    expect((thought.choices[0]!.message as any).reasoning_content).toBe('**Planning** the answer...');
    expect((thought.choices[0]!.message as any).thinking_blocks).toEqual([{ type: 'thinking', thinking: '**Planning** the answer...' }]);
    expect(thought.usage).toEqual({
      prompt_tokens: 12,
      completion_tokens: 88,
      total_tokens: 100,
      prompt_tokens_details: { cached_tokens: 4 },
      completion_tokens_details: { reasoning_tokens: 87 },
    });
  });

  it('streams length, safety and thinking answers that reassemble to the non-streamed ones', async () => {
    for (const [model, name] of [
      ['gemini-2.0-flash', 'max-tokens'],
      ['gemini-2.0-flash', 'safety'],
      ['gemini-2.5-pro', 'thinking'],
    ] as const) {
      geminiRoutes(upstream, model, name);
      const request = { model, messages: [{ role: 'user', content: 'Go' }] };
      const whole = await client.chat.completions.create(request as any);
      const raw = await postStream(`${gw.url}/v1/chat/completions`, { ...request, stream: true, stream_options: { include_usage: true } }, headers);
      expect(raw.done).toBe(true);
      expect(assembleChat(raw.events)).toEqual(comparable(whole));
    }
  });

  it('surfaces safety blocks as finish_reason content_filter (candidate blocked, or the prompt blocked with no candidates)', async () => {
    geminiRoutes(upstream, 'gemini-2.0-flash', 'safety');
    const blockedAnswer = await client.chat.completions.create({ model: 'gemini-2.0-flash', messages: [{ role: 'user', content: 'something' }] });
    expect(blockedAnswer.choices).toEqual([{ index: 0, message: { role: 'assistant', content: null, refusal: null }, logprobs: null, finish_reason: 'content_filter' }]);

    geminiRoutes(upstream, 'gemini-2.0-flash', 'blocked');
    const request = { model: 'gemini-2.0-flash', messages: [{ role: 'user', content: 'something else' }] };
    const blockedPrompt = await client.chat.completions.create(request as any);
    expect(blockedPrompt.choices).toEqual([{ index: 0, message: { role: 'assistant', content: null, refusal: null }, logprobs: null, finish_reason: 'content_filter' }]);
    expect(blockedPrompt.usage).toEqual({ prompt_tokens: 14, completion_tokens: 0, total_tokens: 14 });
    const raw = await postStream(`${gw.url}/v1/chat/completions`, { ...request, stream: true, stream_options: { include_usage: true } }, headers);
    expect(raw.done).toBe(true);
    expect(assembleChat(raw.events)).toEqual(comparable(blockedPrompt));
  });

  it('ends a stream cut before its last candidate finished with an error event and no [DONE]', async () => {
    upstream.on(`POST ${MODEL_PATH}:streamGenerateContent`, { chunks: fixtureChunks('google', 'cut') });
    const raw = await postStream(`${gw.url}/v1/chat/completions`, { model: 'gemini-2.0-flash', messages: [{ role: 'user', content: 'Hi' }], stream: true }, headers);
    expect(raw.done).toBe(false);
    expect(raw.events.at(-2).choices[0].delta.content).toBe('The capital');
    expect(raw.events.at(-1)).toMatchObject({ status: 'failure', error: { type: 'provider_error', provider: 'google' } });
  });

  it('ends a stream with the mapped error when Gemini sends an error event mid-stream', async () => {
    upstream.on(`POST ${MODEL_PATH}:streamGenerateContent`, {
      chunks: [fixtureChunks('google', 'chat')[0]!, `data: ${JSON.stringify(fixtureJson('google', 'error-unavailable'))}\n\n`],
    });
    const raw = await postStream(`${gw.url}/v1/chat/completions`, { model: 'gemini-2.0-flash', messages: [{ role: 'user', content: 'Hi' }], stream: true }, headers);
    expect(raw.done).toBe(false);
    expect(raw.events.at(-1)).toMatchObject({
      status: 'failure',
      error: { type: 'provider_error', code: 'provider_error', message: 'The model is overloaded. Please try again later.' },
    });
  });

  it('answers legacy completions through the chat API', async () => {
    geminiRoutes(upstream, 'gemini-2.0-flash', 'chat');
    const answer = await client.completions.create({ model: 'gemini-2.0-flash', prompt: 'The capital of France is', max_tokens: 20 });
    expect(answer.object).toBe('text_completion');
    expect(answer.choices[0]!.text).toBe('The capital of France is Paris. It sits on the Seine.');
    expect(answer.choices[0]!.finish_reason).toBe('stop');
    expect(upstream.received(`POST ${MODEL_PATH}:generateContent`).at(-1)!.json()).toEqual({
      contents: [{ role: 'user', parts: [{ text: 'The capital of France is' }] }],
      generationConfig: { maxOutputTokens: 20 },
    });
    const stream = await client.completions.create({ model: 'gemini-2.0-flash', prompt: 'The capital of France is', stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.text ?? '';
    expect(text).toBe('The capital of France is Paris. It sits on the Seine.');
  });

  it('rejects a tool result whose tool_call_id matches no earlier call, before calling Gemini', async () => {
    const before = upstream.requests.length;
    const err = await client.chat.completions
      .create({
        model: 'gemini-2.0-flash',
        messages: [
          { role: 'user', content: 'Hi' },
          { role: 'tool', tool_call_id: 'call_9', content: 'x' },
        ],
      })
      .catch((e) => e);
    expect(err.status).toBe(400);
    expect(err.error).toMatchObject({ type: 'invalid_request_error', param: 'messages[1].tool_call_id' });
    expect(upstream.requests.length).toBe(before);
  });

  it('embeds one text with embedContent and a list with batchEmbedContents (dimensions -> outputDimensionality)', async () => {
    upstream.on('POST /v1beta/models/text-embedding-004:embedContent', { json: fixtureJson('google', 'embed') });
    upstream.on('POST /v1beta/models/text-embedding-004:batchEmbedContents', { json: fixtureJson('google', 'batch-embed') });
    const one = await client.embeddings.create({ model: 'text-embedding-004', input: 'hello', dimensions: 4, encoding_format: 'float' });
    expect(upstream.received('POST /v1beta/models/text-embedding-004:embedContent').at(-1)!.json()).toEqual({
      content: { parts: [{ text: 'hello' }] },
      outputDimensionality: 4,
    });
    expect(one).toEqual({
      object: 'list',
      data: [{ object: 'embedding', index: 0, embedding: [0.0132, -0.0087, 0.0415, 0.0021] }],
      model: 'text-embedding-004',
      usage: { prompt_tokens: 0, total_tokens: 0 },
    });
    // the SDK asks for base64 by default and decodes it
    const many = await client.embeddings.create({ model: 'text-embedding-004', input: ['hello', 'world'] });
    expect(upstream.received('POST /v1beta/models/text-embedding-004:batchEmbedContents').at(-1)!.json()).toEqual({
      requests: [
        { model: 'models/text-embedding-004', content: { parts: [{ text: 'hello' }] } },
        { model: 'models/text-embedding-004', content: { parts: [{ text: 'world' }] } },
      ],
    });
    expect(many.data.map((d) => d.index)).toEqual([0, 1]);
    const expected = fixtureJson('google', 'batch-embed').embeddings;
    many.data.forEach((d, i) => d.embedding.forEach((v, j) => expect(v).toBeCloseTo(expected[i].values[j], 6)));
  });

  it('lists models in the OpenAI shape, ids without the models/ prefix', async () => {
    upstream.on('GET /v1beta/models', { json: fixtureJson('google', 'models') });
    const res = await request(`${gw.url}/v1/models`, { headers });
    const body: any = await res.body.json();
    expect(res.statusCode).toBe(200);
    expect(body).toEqual({
      object: 'list',
      data: [
        { id: 'gemini-2.0-flash', object: 'model', created: 0, owned_by: 'google' },
        { id: 'gemini-2.5-pro', object: 'model', created: 0, owned_by: 'google' },
        { id: 'text-embedding-004', object: 'model', created: 0, owned_by: 'google' },
      ],
      has_more: true,
      first_id: 'gemini-2.0-flash',
      last_id: 'text-embedding-004',
    });
    const sent = upstream.received('GET /v1beta/models').at(-1)!;
    expect(sent.url).toBe('/v1beta/models?pageSize=1000');
    expect(sent.headers['x-goog-api-key']).toBe(KEY);
  });

  describe('errors', () => {
    const cases: Array<[string, FakeReply, number, Record<string, unknown>, Record<string, string>?]> = [
      ['an invalid key (400 API_KEY_INVALID)', { status: 400, json: fixtureJson('google', 'error-api-key') }, 401, { type: 'authentication_error', code: 'invalid_api_key' }],
      [
        'a refused caller (403 PERMISSION_DENIED)',
        { status: 403, json: fixtureJson('google', 'error-permission') },
        401,
        { type: 'authentication_error', code: 'invalid_api_key' },
      ],
      ['an unknown model (404 NOT_FOUND)', { status: 404, json: fixtureJson('google', 'error-not-found') }, 404, { type: 'provider_error', code: 'model_not_found' }],
      [
        'a quota (429 RESOURCE_EXHAUSTED with RetryInfo)',
        { status: 429, json: fixtureJson('google', 'error-quota') },
        429,
        { type: 'rate_limit_error', code: 'rate_limit_exceeded' },
        { 'retry-after': '37' },
      ],
      ['an overload (503 UNAVAILABLE)', { status: 503, json: fixtureJson('google', 'error-unavailable') }, 502, { type: 'provider_error', code: 'provider_error' }],
    ];
    for (const [what, reply, status, error, expectedHeaders] of cases) {
      it(`maps ${what} to ${status}`, async () => {
        upstream.on(`POST ${MODEL_PATH}:generateContent`, reply);
        const res = await request(`${gw.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'gemini-2.0-flash', messages: [{ role: 'user', content: 'Hi' }] }),
        });
        const body: any = await res.body.json();
        expect(res.statusCode).toBe(status);
        expect(body.status).toBe('failure');
        expect(body.error).toMatchObject({ ...error, provider: 'google' });
        expect(body.error.message).toBe((reply as any).json.error.message);
        for (const [name, value] of Object.entries(expectedHeaders ?? {})) expect(res.headers[name]).toBe(value);
        expect(JSON.stringify(body)).not.toContain(KEY);
      });
    }
  });
});
