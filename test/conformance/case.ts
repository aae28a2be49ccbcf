import type { FakeReply, ReceivedRequest } from '../helpers/fake-upstream.js';

/**
 * The format of a conformance case: test/conformance/cases/<provider>.ts default-exports one
 * `ConformanceCase`. The runner (conformance.test.ts) runs the same list of tests for every
 * case, end to end through the `openai` SDK: it sends the scenario requests below, the case
 * says what the provider must receive (path, headers, translated body) and what its fake
 * answers (recorded fixtures), and the runner checks the OpenAI-shaped answers, streamed and
 * whole, against the case's expected answers.
 */
export type Scenario = 'text' | 'tools' | 'json' | 'completion';
export type ErrorScenario = 'invalidKey' | 'unknownModel' | 'rateLimit' | 'contentPolicy' | 'overload';
export type UnsupportedOperation = 'embeddings' | 'images.generations' | 'audio.speech' | 'models.list';

export interface ExpectedAnswer {
  model: string;
  /** The answer's text; for the json scenario, JSON text compared after parsing. */
  content: string | null;
  /** Tool calls in order; arguments compared after parsing. Ids must be the provider's own. */
  toolCalls?: Array<{ id: string; name: string; arguments: Record<string, unknown> }>;
  finish_reason: 'stop' | 'length' | 'tool_calls' | 'content_filter';
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number; [k: string]: unknown };
}

export interface ConformanceCase {
  /** The x-gateway-provider value. */
  provider: string;
  /** `providers.<provider>` of the gateway config, pointing the provider at the fake. */
  settings(fakeUrl: string): Record<string, unknown>;
  /** What the SDK client sends: its apiKey (Authorization: Bearer) and extra headers. */
  client: { apiKey: string; headers?: Record<string, string> };
  /** The model of the chat and completion scenarios. */
  chatModel: string;
  /** "METHOD /path" the provider's chat call goes to (the fake serves it). */
  chatRoute(stream: boolean): string;
  /** Asserts the credentials (key header, signature) and fixed headers of an outbound call. */
  checkHeaders(req: ReceivedRequest): void;
  /** The exact JSON body the provider must receive for a scenario. */
  expectedBody(scenario: Scenario, stream: boolean): unknown;
  /** The fake's answer to a scenario (recorded fixtures); 'stream-error' fails after some text. */
  reply(scenario: Scenario | 'stream-error', stream: boolean): FakeReply;
  /** The OpenAI answer each chat scenario must give (completion: its text and finish). */
  answers: Record<Exclude<Scenario, 'completion'>, ExpectedAnswer> & { completion: { text: string; finish_reason: string } };
  /** The gateway error code a failure in the middle of the stream becomes. */
  streamErrorCode: string;
  /** Embeddings, when the provider serves them: route, fake, expected bodies and vectors. */
  embeddings?: {
    model: string;
    route: string;
    reply: FakeReply;
    /** Bodies of the upstream calls for input ["first text", "second text"], in order. */
    expectedBodies: unknown[];
    vectors: number[][];
    promptTokens: number;
  };
  /** The fake's error answers (recorded fixtures) for each error scenario. */
  errors: Record<ErrorScenario, FakeReply>;
  /** Retry-After the gateway must send for the rateLimit scenario. */
  rateLimitRetryAfter: string;
  /** Operations the provider does not serve: each must be a 400 naming the provider and the operation. */
  unsupported: UnsupportedOperation[];
  /**
   * The provider streams each tool call's arguments in one piece (Gemini sends whole function
   * calls): the call then comes as its first delta plus one argument delta, not split further.
   */
  wholeToolArguments?: boolean;
}

export const SMALL_PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

export const WEATHER_TOOL = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'Current weather of a city',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } },
      required: ['city'],
    },
  },
};

export const TIME_TOOL = {
  type: 'function' as const,
  function: {
    name: 'get_time',
    description: 'Current time in a time zone',
    parameters: { type: 'object', properties: { timezone: { type: 'string' } }, required: ['timezone'] },
  },
};

export const PRIOR_CALL_ID = 'call_prior_0001';

export const CAPITAL_SCHEMA = {
  type: 'object',
  properties: { country: { type: 'string' }, capital: { type: 'string' } },
  required: ['country', 'capital'],
};

/** The requests of each scenario (the SDK adds stream / stream_options for streamed runs). */
export function scenarioRequest(scenario: Scenario, model: string): Record<string, any> {
  switch (scenario) {
    case 'text':
      return {
        model,
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
        stop: ['END'],
      };
    case 'tools':
      return {
        model,
        messages: [
          { role: 'system', content: 'Use the tools.' },
          { role: 'user', content: 'What is the weather in Lyon?' },
          { role: 'assistant', content: null, tool_calls: [{ id: PRIOR_CALL_ID, type: 'function', function: { name: 'get_weather', arguments: '{"city":"Lyon"}' } }] },
          { role: 'tool', tool_call_id: PRIOR_CALL_ID, content: '{"temperature_c":21}' },
          { role: 'user', content: 'Now the weather in Paris and the time in London.' },
        ],
        tools: [WEATHER_TOOL, TIME_TOOL],
        tool_choice: 'auto',
      };
    case 'json':
      return {
        model,
        messages: [{ role: 'user', content: 'Give me the capital of France as JSON.' }],
        response_format: { type: 'json_schema', json_schema: { name: 'capital', schema: CAPITAL_SCHEMA } },
      };
    case 'completion':
      return { model, prompt: 'Say hello.', max_tokens: 20, temperature: 0.4 };
  }
}
