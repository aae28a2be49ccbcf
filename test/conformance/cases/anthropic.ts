import { expect } from 'vitest';
import type { ConformanceCase, ErrorScenario, Scenario } from '../case.js';
import { CAPITAL_SCHEMA, PRIOR_CALL_ID, SMALL_PNG, TIME_TOOL, WEATHER_TOOL } from '../case.js';
import { errorReplies, jsonReply, sseReply } from '../replies.js';

const MODEL = 'claude-3-5-sonnet-20241022';
const KEY = 'sk-ant-api03-conformance-key-0001';

function body(scenario: Scenario): Record<string, unknown> {
  switch (scenario) {
    case 'text':
      return {
        model: MODEL,
        system: 'You are a terse assistant.',
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'What is in this picture?' },
              { type: 'image', source: { type: 'base64', media_type: 'image/png', data: SMALL_PNG } },
            ],
          },
        ],
        max_tokens: 200,
        temperature: 0.4,
        stop_sequences: ['END'],
      };
    case 'tools':
      return {
        model: MODEL,
        system: 'Use the tools.',
        messages: [
          { role: 'user', content: 'What is the weather in Lyon?' },
          { role: 'assistant', content: [{ type: 'tool_use', id: PRIOR_CALL_ID, name: 'get_weather', input: { city: 'Lyon' } }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: PRIOR_CALL_ID, content: '{"temperature_c":21}' }] },
          { role: 'user', content: 'Now the weather in Paris and the time in London.' },
        ],
        max_tokens: 4096,
        tools: [
          { name: 'get_weather', description: WEATHER_TOOL.function.description, input_schema: WEATHER_TOOL.function.parameters },
          { name: 'get_time', description: TIME_TOOL.function.description, input_schema: TIME_TOOL.function.parameters },
        ],
        tool_choice: { type: 'auto' },
      };
    case 'json':
      return {
        model: MODEL,
        messages: [{ role: 'user', content: 'Give me the capital of France as JSON.' }],
        max_tokens: 4096,
        tools: [{ name: 'json_response', description: "Give the final answer (capital) as this tool's input.", input_schema: CAPITAL_SCHEMA }],
        tool_choice: { type: 'tool', name: 'json_response' },
      };
    case 'completion':
      return { model: MODEL, messages: [{ role: 'user', content: 'Say hello.' }], max_tokens: 20, temperature: 0.4 };
  }
}

const anthropic: ConformanceCase = {
  provider: 'anthropic',
  settings: (url) => ({ baseUrl: url }),
  client: { apiKey: KEY },
  chatModel: MODEL,
  chatRoute: () => 'POST /v1/messages',
  checkHeaders(req) {
    expect(req.headers['x-api-key']).toBe(KEY);
    expect(req.headers['anthropic-version']).toBe('2023-06-01');
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.headers.authorization).toBeUndefined();
    expect(Object.keys(req.headers).filter((h) => h.startsWith('x-gateway-'))).toEqual([]);
  },
  expectedBody: (scenario, stream) => (stream ? { ...body(scenario), stream: true } : body(scenario)),
  reply(scenario, stream) {
    if (scenario === 'stream-error') return sseReply('anthropic', 'stream-error');
    return stream ? sseReply('anthropic', scenario) : jsonReply('anthropic', scenario);
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
        { id: 'toolu_01A09q90qw90lq917835lq9', name: 'get_weather', arguments: { city: 'Paris', unit: 'celsius' } },
        { id: 'toolu_01B7d3kEyq2hTBqL1ZbXy4Vm', name: 'get_time', arguments: { timezone: 'Europe/London' } },
      ],
      finish_reason: 'tool_calls',
      usage: { prompt_tokens: 540, completion_tokens: 96, total_tokens: 636, prompt_tokens_details: { cached_tokens: 128 } },
    },
    json: {
      model: MODEL,
      content: '{"country":"France","capital":"Paris"}',
      finish_reason: 'stop',
      usage: { prompt_tokens: 380, completion_tokens: 41, total_tokens: 421 },
    },
    completion: { text: 'Hello there!', finish_reason: 'stop' },
  },
  streamErrorCode: 'provider_error',
  errors: errorReplies('anthropic') as Record<ErrorScenario, any>,
  rateLimitRetryAfter: '17',
  unsupported: ['embeddings', 'images.generations', 'audio.speech'],
};

export default anthropic;
