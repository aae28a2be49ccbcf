import { expect } from 'vitest';
import type { ConformanceCase, ErrorScenario, Scenario } from '../case.js';
import { CAPITAL_SCHEMA, SMALL_PNG, TIME_TOOL, WEATHER_TOOL } from '../case.js';
import { errorReplies, jsonReply, sseReply } from '../replies.js';

const MODEL = 'gemini-2.0-flash';
const KEY = 'AIzaSyConformanceKey-000000000001';

/** The GenerateContentRequest of each scenario: the Gemini API and Vertex AI receive the same body. */
export function geminiBody(scenario: Scenario): Record<string, unknown> {
  switch (scenario) {
    case 'text':
      return {
        contents: [
          {
            role: 'user',
            parts: [{ text: 'What is in this picture?' }, { inlineData: { mimeType: 'image/png', data: SMALL_PNG } }],
          },
        ],
        systemInstruction: { parts: [{ text: 'You are a terse assistant.' }] },
        generationConfig: { temperature: 0.4, maxOutputTokens: 200, stopSequences: ['END'] },
      };
    case 'tools':
      return {
        contents: [
          { role: 'user', parts: [{ text: 'What is the weather in Lyon?' }] },
          { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Lyon' } } }] },
          {
            role: 'user',
            parts: [{ functionResponse: { name: 'get_weather', response: { temperature_c: 21 } } }, { text: 'Now the weather in Paris and the time in London.' }],
          },
        ],
        systemInstruction: { parts: [{ text: 'Use the tools.' }] },
        tools: [
          {
            functionDeclarations: [
              { name: 'get_weather', description: WEATHER_TOOL.function.description, parameters: WEATHER_TOOL.function.parameters },
              { name: 'get_time', description: TIME_TOOL.function.description, parameters: TIME_TOOL.function.parameters },
            ],
          },
        ],
        toolConfig: { functionCallingConfig: { mode: 'AUTO' } },
      };
    case 'json':
      return {
        contents: [{ role: 'user', parts: [{ text: 'Give me the capital of France as JSON.' }] }],
        generationConfig: { responseMimeType: 'application/json', responseSchema: CAPITAL_SCHEMA },
      };
    case 'completion':
      return {
        contents: [{ role: 'user', parts: [{ text: 'Say hello.' }] }],
        generationConfig: { temperature: 0.4, maxOutputTokens: 20 },
      };
  }
}

/** The OpenAI answers the scenario fixtures (test/fixtures/<provider>/scenario-*) must give. */
export function geminiAnswers(model: string): ConformanceCase['answers'] {
  return {
    text: { model, content: 'A small red square on a white background.', finish_reason: 'stop', usage: { prompt_tokens: 268, completion_tokens: 11, total_tokens: 279 } },
    tools: {
      model,
      content: "I'll check both.",
      toolCalls: [
        { id: 'call_0', name: 'get_weather', arguments: { city: 'Paris', unit: 'celsius' } },
        { id: 'call_1', name: 'get_time', arguments: { timezone: 'Europe/London' } },
      ],
      finish_reason: 'tool_calls',
      usage: { prompt_tokens: 142, completion_tokens: 38, total_tokens: 180 },
    },
    json: { model, content: '{"country":"France","capital":"Paris"}', finish_reason: 'stop', usage: { prompt_tokens: 17, completion_tokens: 14, total_tokens: 31 } },
    completion: { text: 'Hello there!', finish_reason: 'stop' },
  };
}

/** Whole answers from scenario-<name>.json, streams from scenario-<name>.chunks.txt. */
export function geminiReply(provider: string) {
  return (scenario: Scenario | 'stream-error', stream: boolean) => (stream ? sseReply(provider, `scenario-${scenario}`) : jsonReply(provider, `scenario-${scenario}`));
}

const google: ConformanceCase = {
  provider: 'google',
  settings: (url) => ({ baseUrl: url }),
  client: { apiKey: KEY },
  chatModel: MODEL,
  chatRoute: (stream) => `POST /v1beta/models/${MODEL}:${stream ? 'streamGenerateContent' : 'generateContent'}`,
  checkHeaders(req) {
    expect(req.headers['x-goog-api-key']).toBe(KEY);
    expect(req.headers.authorization).toBeUndefined();
    if (req.method === 'POST') expect(req.headers['content-type']).toBe('application/json');
    if (req.path.endsWith(':streamGenerateContent')) expect(req.url.endsWith('?alt=sse')).toBe(true);
    expect(Object.keys(req.headers).filter((h) => h.startsWith('x-gateway-'))).toEqual([]);
  },
  expectedBody: (scenario) => geminiBody(scenario),
  reply: geminiReply('google'),
  answers: geminiAnswers(MODEL),
  streamErrorCode: 'provider_error',
  embeddings: {
    model: 'text-embedding-004',
    route: 'POST /v1beta/models/text-embedding-004:batchEmbedContents',
    reply: jsonReply('google', 'scenario-batch-embed'),
    expectedBodies: [
      {
        requests: [
          { model: 'models/text-embedding-004', content: { parts: [{ text: 'first text' }] } },
          { model: 'models/text-embedding-004', content: { parts: [{ text: 'second text' }] } },
        ],
      },
    ],
    vectors: [
      [0.0132, -0.0087, 0.0415],
      [-0.0211, 0.0554, 0.0003],
    ],
    promptTokens: 0,
  },
  errors: errorReplies('google') as Record<ErrorScenario, any>,
  rateLimitRetryAfter: '37',
  unsupported: ['images.generations', 'audio.speech'],
  wholeToolArguments: true,
};

export default google;
