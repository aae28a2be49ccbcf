import { expect } from 'vitest';
import type { ConformanceCase, ErrorScenario, Scenario } from '../case.js';
import { CAPITAL_SCHEMA, PRIOR_CALL_ID, SMALL_PNG, TIME_TOOL, WEATHER_TOOL } from '../case.js';
import { errorReplies, jsonReply, sseReply } from '../replies.js';
import { fixtureJson } from '../../helpers/fixtures.js';

const MODEL = 'command-r-plus-08-2024';
const EMBED_MODEL = 'embed-english-v3.0';
const KEY = 'co-conformance-key-0123456789abcdef';

function body(scenario: Scenario): Record<string, unknown> {
  switch (scenario) {
    case 'text':
      return {
        model: MODEL,
        messages: [
          { role: 'system', content: 'You are a terse assistant.' },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'What is in this picture?' },
              { type: 'image_url', image_url: { url: `data:image/png;base64,${SMALL_PNG}` } },
            ],
          },
        ],
        temperature: 0.4,
        max_tokens: 200,
        stop_sequences: ['END'],
      };
    case 'tools':
      return {
        model: MODEL,
        messages: [
          { role: 'system', content: 'Use the tools.' },
          { role: 'user', content: 'What is the weather in Lyon?' },
          { role: 'assistant', tool_calls: [{ id: PRIOR_CALL_ID, type: 'function', function: { name: 'get_weather', arguments: '{"city":"Lyon"}' } }] },
          { role: 'tool', tool_call_id: PRIOR_CALL_ID, content: '{"temperature_c":21}' },
          { role: 'user', content: 'Now the weather in Paris and the time in London.' },
        ],
        tools: [WEATHER_TOOL, TIME_TOOL],
      };
    case 'json':
      return {
        model: MODEL,
        messages: [{ role: 'user', content: 'Give me the capital of France as JSON.' }],
        response_format: { type: 'json_object', json_schema: CAPITAL_SCHEMA },
      };
    case 'completion':
      return { model: MODEL, messages: [{ role: 'user', content: 'Say hello.' }], max_tokens: 20, temperature: 0.4 };
  }
}

const embed = fixtureJson('cohere', 'embed');

const cohere: ConformanceCase = {
  provider: 'cohere',
  settings: (url) => ({ baseUrl: url }),
  client: { apiKey: KEY },
  chatModel: MODEL,
  chatRoute: () => 'POST /v2/chat',
  checkHeaders(req) {
    expect(req.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(req.headers['content-type']).toBe('application/json');
    expect(Object.keys(req.headers).filter((h) => h.startsWith('x-gateway-'))).toEqual([]);
  },
  expectedBody: (scenario, stream) => (stream ? { ...body(scenario), stream: true } : body(scenario)),
  reply(scenario, stream) {
    if (scenario === 'stream-error') return sseReply('cohere', 'stream-error');
    return stream ? sseReply('cohere', scenario) : jsonReply('cohere', scenario);
  },
  answers: {
    text: {
      model: MODEL,
      content: 'A small red square on a white background.',
      finish_reason: 'stop',
      usage: { prompt_tokens: 31, completion_tokens: 12, total_tokens: 43 },
    },
    tools: {
      model: MODEL,
      content: "I'll check both.",
      toolCalls: [
        { id: 'get_weather_pxmz5nqf4b1a', name: 'get_weather', arguments: { city: 'Paris', unit: 'celsius' } },
        { id: 'get_time_8q2w3e4r5t6y', name: 'get_time', arguments: { timezone: 'Europe/London' } },
      ],
      finish_reason: 'tool_calls',
      usage: { prompt_tokens: 97, completion_tokens: 41, total_tokens: 138 },
    },
    json: {
      model: MODEL,
      content: '{"country":"France","capital":"Paris"}',
      finish_reason: 'stop',
      usage: { prompt_tokens: 12, completion_tokens: 15, total_tokens: 27 },
    },
    completion: { text: 'Hello there!', finish_reason: 'stop' },
  },
  streamErrorCode: 'provider_error',
  embeddings: {
    model: EMBED_MODEL,
    route: 'POST /v2/embed',
    reply: { json: embed },
    expectedBodies: [{ model: EMBED_MODEL, texts: ['first text', 'second text'], input_type: 'search_document', embedding_types: ['float'] }],
    vectors: embed.embeddings.float,
    promptTokens: 4,
  },
  errors: errorReplies('cohere') as Record<ErrorScenario, any>,
  rateLimitRetryAfter: '30',
  unsupported: ['images.generations', 'audio.speech', 'models.list'],
};

export default cohere;
