import { expect } from 'vitest';
import type { ConformanceCase, ErrorScenario, Scenario } from '../case.js';
import { CAPITAL_SCHEMA, PRIOR_CALL_ID, SMALL_PNG, TIME_TOOL, WEATHER_TOOL } from '../case.js';
import { errorReplies, eventStreamReply, jsonReply } from '../replies.js';
import { verifySigV4 } from '../../helpers/sigv4-verify.js';
import { fixtureJson } from '../../helpers/fixtures.js';

const MODEL = 'anthropic.claude-3-5-sonnet-20241022-v2:0';
const MODEL_IN_PATH = 'anthropic.claude-3-5-sonnet-20241022-v2%3A0';
const EMBED_MODEL = 'amazon.titan-embed-text-v2:0';
const ACCESS_KEY = 'AKIAIOSFODNN7EXAMPLE';
const SECRET_KEY = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
const SESSION_TOKEN = 'FwoGZXIvYXdzEXAMPLEsessionTOKENvalue0123456789';
const REGION = 'eu-west-1';

function body(scenario: Scenario): Record<string, unknown> {
  switch (scenario) {
    case 'text':
      return {
        messages: [{ role: 'user', content: [{ text: 'What is in this picture?' }, { image: { format: 'png', source: { bytes: SMALL_PNG } } }] }],
        system: [{ text: 'You are a terse assistant.' }],
        inferenceConfig: { maxTokens: 200, temperature: 0.4, stopSequences: ['END'] },
      };
    case 'tools':
      return {
        messages: [
          { role: 'user', content: [{ text: 'What is the weather in Lyon?' }] },
          { role: 'assistant', content: [{ toolUse: { toolUseId: PRIOR_CALL_ID, name: 'get_weather', input: { city: 'Lyon' } } }] },
          {
            role: 'user',
            content: [{ toolResult: { toolUseId: PRIOR_CALL_ID, content: [{ text: '{"temperature_c":21}' }] } }, { text: 'Now the weather in Paris and the time in London.' }],
          },
        ],
        system: [{ text: 'Use the tools.' }],
        toolConfig: {
          tools: [
            { toolSpec: { name: 'get_weather', description: WEATHER_TOOL.function.description, inputSchema: { json: WEATHER_TOOL.function.parameters } } },
            { toolSpec: { name: 'get_time', description: TIME_TOOL.function.description, inputSchema: { json: TIME_TOOL.function.parameters } } },
          ],
          toolChoice: { auto: {} },
        },
      };
    case 'json':
      return {
        messages: [{ role: 'user', content: [{ text: 'Give me the capital of France as JSON.' }] }],
        system: [{ text: `Answer with one JSON value that follows this JSON Schema, and nothing else (no prose, no code fences):\n${JSON.stringify(CAPITAL_SCHEMA)}` }],
      };
    case 'completion':
      return { messages: [{ role: 'user', content: [{ text: 'Say hello.' }] }], inferenceConfig: { maxTokens: 20, temperature: 0.4 } };
  }
}

const titan = fixtureJson('bedrock', 'titan-embeddings') as Record<string, { embedding: number[]; inputTextTokenCount: number }>;

const bedrock: ConformanceCase = {
  provider: 'bedrock',
  settings: (url) => ({ baseUrl: url }),
  client: {
    apiKey: 'not-used-by-bedrock',
    headers: {
      'x-gateway-aws-access-key-id': ACCESS_KEY,
      'x-gateway-aws-secret-access-key': SECRET_KEY,
      'x-gateway-aws-session-token': SESSION_TOKEN,
      'x-gateway-aws-region': REGION,
    },
  },
  chatModel: MODEL,
  chatRoute: (stream) => `POST /model/${MODEL_IN_PATH}/${stream ? 'converse-stream' : 'converse'}`,
  checkHeaders(req) {
    const check = verifySigV4(req, SECRET_KEY);
    expect(check.valid, 'the SigV4 signature verifies').toBe(true);
    expect(check).toMatchObject({ accessKeyId: ACCESS_KEY, region: REGION, service: 'bedrock' });
    expect(check.signedHeaders).toEqual(expect.arrayContaining(['host', 'x-amz-date', 'x-amz-security-token', 'content-type']));
    expect(req.headers['x-amz-security-token']).toBe(SESSION_TOKEN);
    expect(req.headers['content-type']).toBe('application/json');
    expect(JSON.stringify(req.headers)).not.toContain(SECRET_KEY);
    expect(JSON.stringify(req.headers)).not.toContain('not-used-by-bedrock');
    expect(Object.keys(req.headers).filter((h) => h.startsWith('x-gateway-'))).toEqual([]);
  },
  expectedBody: (scenario) => body(scenario),
  reply(scenario, stream) {
    if (scenario === 'stream-error') return eventStreamReply('bedrock', 'stream-error.events');
    return stream ? eventStreamReply('bedrock', `${scenario}.events`) : jsonReply('bedrock', scenario);
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
        { id: 'tooluse_kZJMlvQmRJ6eAyJE5GIl7Q', name: 'get_weather', arguments: { city: 'Paris', unit: 'celsius' } },
        { id: 'tooluse_2mWQ0Cv0TrSZy9yBCWM0lA', name: 'get_time', arguments: { timezone: 'Europe/London' } },
      ],
      finish_reason: 'tool_calls',
      usage: { prompt_tokens: 412, completion_tokens: 96, total_tokens: 508 },
    },
    json: {
      model: MODEL,
      content: '{"country":"France","capital":"Paris"}',
      finish_reason: 'stop',
      usage: { prompt_tokens: 88, completion_tokens: 15, total_tokens: 103 },
    },
    completion: { text: 'Hello there!', finish_reason: 'stop' },
  },
  streamErrorCode: 'provider_error',
  embeddings: {
    model: EMBED_MODEL,
    route: `POST /model/${encodeURIComponent(EMBED_MODEL)}/invoke`,
    reply: (req, res) => {
      const answer = titan[req.json().inputText];
      res.writeHead(answer ? 200 : 400, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer ?? { message: 'unexpected inputText' }));
    },
    expectedBodies: [{ inputText: 'first text' }, { inputText: 'second text' }],
    vectors: [titan['first text']!.embedding, titan['second text']!.embedding],
    promptTokens: 6,
  },
  errors: errorReplies('bedrock') as Record<ErrorScenario, any>,
  rateLimitRetryAfter: '1',
  unsupported: ['images.generations', 'audio.speech', 'models.list'],
};

export default bedrock;
