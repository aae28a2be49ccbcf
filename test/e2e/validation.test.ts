import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeUpstream } from '../helpers/fake-upstream.js';
import { fixtureJson } from '../helpers/fixtures.js';
import { startGateway, type TestGateway } from '../helpers/start-gateway.js';

/**
 * Every validation rule of the JSON endpoints (schema/requests/*.schema.json plus the semantic
 * rules): the answer is the contract's error body with the status, type, code and param, and
 * nothing goes upstream. Valid bodies (the controls) reach the upstream untouched.
 */
type Case = [title: string, body: Record<string, unknown>, status: number, param: string];

const CHAT = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] };
const COMPLETION = { model: 'gpt-3.5-turbo-instruct', prompt: 'Say this is a test' };
const EMBEDDING = { model: 'text-embedding-3-small', input: 'hello' };
const IMAGE = { prompt: 'a lighthouse at dusk' };
const SPEECH = { model: 'tts-1', input: 'Hello there', voice: 'alloy' };
const BATCH = { input_file_id: 'file-abc123', endpoint: '/v1/chat/completions', completion_window: '24h' };
const FINE_TUNE = { training_file: 'file-abc123', model: 'gpt-4o-mini-2024-07-18' };

const without = (body: Record<string, unknown>, key: string) => Object.fromEntries(Object.entries(body).filter(([k]) => k !== key));
const tool = (fn: Record<string, unknown>) => ({ type: 'function', function: fn });

const RULES: Record<string, Case[]> = {
  '/v1/chat/completions': [
    ['model is required', without(CHAT, 'model'), 400, 'model'],
    ['model must not be empty', { ...CHAT, model: '' }, 400, 'model'],
    ['model must be a string', { ...CHAT, model: 4 }, 400, 'model'],
    ['messages is required', without(CHAT, 'messages'), 400, 'messages'],
    ['messages must not be empty', { ...CHAT, messages: [] }, 400, 'messages'],
    ['messages must be an array', { ...CHAT, messages: 'Hi' }, 400, 'messages'],
    ['a message needs a role', { ...CHAT, messages: [{ content: 'Hi' }] }, 400, 'messages[0].role'],
    [
      'roles are an enumeration',
      {
        ...CHAT,
        messages: [
          { role: 'user', content: 'a' },
          { role: 'robot', content: 'b' },
        ],
      },
      400,
      'messages[1].role',
    ],
    ['content is text, parts or null', { ...CHAT, messages: [{ role: 'user', content: 42 }] }, 400, 'messages[0].content'],
    ['temperature at most 2', { ...CHAT, temperature: 2.01 }, 400, 'temperature'],
    ['temperature at least 0', { ...CHAT, temperature: -0.1 }, 400, 'temperature'],
    ['temperature is a number', { ...CHAT, temperature: 'warm' }, 400, 'temperature'],
    ['top_p at most 1', { ...CHAT, top_p: 1.5 }, 400, 'top_p'],
    ['stop has up to 4 sequences', { ...CHAT, stop: ['a', 'b', 'c', 'd', 'e'] }, 400, 'stop'],
    ['stop is a string or a list', { ...CHAT, stop: 7 }, 400, 'stop'],
    ['presence_penalty at most 2', { ...CHAT, presence_penalty: 2.5 }, 400, 'presence_penalty'],
    ['frequency_penalty at least -2', { ...CHAT, frequency_penalty: -2.5 }, 400, 'frequency_penalty'],
    ['n at least 1', { ...CHAT, n: 0 }, 400, 'n'],
    ['n is an integer', { ...CHAT, n: 1.5 }, 400, 'n'],
    ['max_tokens at least 1', { ...CHAT, max_tokens: 0 }, 400, 'max_tokens'],
    ['tools is a list', { ...CHAT, tools: 'search' }, 400, 'tools'],
    ['a tool needs its function', { ...CHAT, tools: [{ type: 'function' }] }, 400, 'tools[0].function'],
    ['a tool is of type function', { ...CHAT, tools: [{ type: 'retrieval', function: { name: 'f' } }] }, 400, 'tools[0].type'],
    ['a tool function needs a name', { ...CHAT, tools: [tool({ description: 'x' })] }, 400, 'tools[0].function.name'],
    ['a tool name is [a-zA-Z0-9_-]{1,64}', { ...CHAT, tools: [tool({ name: 'get weather' })] }, 400, 'tools[0].function.name'],
    ['tool_choice is none, auto, required or an object', { ...CHAT, tool_choice: 'sometimes' }, 400, 'tool_choice'],
    ['tool_choice object is of type function', { ...CHAT, tools: [tool({ name: 'f' })], tool_choice: { type: 'tool' } }, 400, 'tool_choice.type'],
    ['a custom tool needs its custom object', { ...CHAT, tools: [{ type: 'custom' }] }, 400, 'tools[0].custom'],
    ['a custom tool name is [a-zA-Z0-9_-]{1,64}', { ...CHAT, tools: [{ type: 'custom', custom: { name: 'run code' } }] }, 400, 'tools[0].custom.name'],
    [
      'allowed_tools needs its mode',
      { ...CHAT, tools: [tool({ name: 'f' })], tool_choice: { type: 'allowed_tools', allowed_tools: { tools: [] } } },
      400,
      'tool_choice.allowed_tools.mode',
    ],
    [
      'a custom tool call needs its input',
      { ...CHAT, messages: [{ role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'custom', custom: { name: 'f' } }] }] },
      400,
      'messages[0].tool_calls[0].custom.input',
    ],
    ['tool_choice naming a function needs tools', { ...CHAT, tool_choice: { type: 'function', function: { name: 'f' } } }, 422, 'tool_choice'],
    ['response_format needs a type', { ...CHAT, response_format: {} }, 400, 'response_format.type'],
    ['response_format type is an enumeration', { ...CHAT, response_format: { type: 'xml' } }, 400, 'response_format.type'],
    ['response_format is an object', { ...CHAT, response_format: 'json_object' }, 400, 'response_format'],
    ['seed is an integer', { ...CHAT, seed: 1.5 }, 400, 'seed'],
    ['stream is a boolean', { ...CHAT, stream: 'yes' }, 400, 'stream'],
    ['stream_options only with stream', { ...CHAT, stream_options: { include_usage: true } }, 422, 'stream_options'],
    ['user is a string', { ...CHAT, user: 12 }, 400, 'user'],
  ],
  '/v1/completions': [
    ['model is required', without(COMPLETION, 'model'), 400, 'model'],
    ['prompt is required', without(COMPLETION, 'prompt'), 400, 'prompt'],
    ['prompt is text or a list', { ...COMPLETION, prompt: 5 }, 400, 'prompt'],
    ['a prompt list is not empty', { ...COMPLETION, prompt: [] }, 400, 'prompt'],
    ['prompt list items are text or tokens', { ...COMPLETION, prompt: [{ text: 'a' }] }, 400, 'prompt[0]'],
    ['max_tokens at least 0', { ...COMPLETION, max_tokens: -1 }, 400, 'max_tokens'],
    ['temperature at most 2', { ...COMPLETION, temperature: 3 }, 400, 'temperature'],
    ['stop has up to 4 sequences', { ...COMPLETION, stop: ['1', '2', '3', '4', '5'] }, 400, 'stop'],
    ['penalties within -2..2', { ...COMPLETION, presence_penalty: -2.1 }, 400, 'presence_penalty'],
    ['suffix is a string', { ...COMPLETION, suffix: 3 }, 400, 'suffix'],
    ['echo is a boolean', { ...COMPLETION, echo: 'true' }, 400, 'echo'],
    ['logprobs at most 5', { ...COMPLETION, logprobs: 6 }, 400, 'logprobs'],
    ['best_of at most 20', { ...COMPLETION, best_of: 21 }, 400, 'best_of'],
    ['best_of must be >= n', { ...COMPLETION, best_of: 1, n: 2 }, 422, 'best_of'],
    ['best_of > 1 cannot stream', { ...COMPLETION, best_of: 2, stream: true }, 422, 'best_of'],
  ],
  '/v1/embeddings': [
    ['model is required', without(EMBEDDING, 'model'), 400, 'model'],
    ['input is required', without(EMBEDDING, 'input'), 400, 'input'],
    ['input is text or a list', { ...EMBEDDING, input: 5 }, 400, 'input'],
    ['an input list is not empty', { ...EMBEDDING, input: [] }, 400, 'input'],
    ['encoding_format is float or base64', { ...EMBEDDING, encoding_format: 'int8' }, 400, 'encoding_format'],
    ['dimensions at least 1', { ...EMBEDDING, dimensions: 0 }, 400, 'dimensions'],
    ['dimensions is an integer', { ...EMBEDDING, dimensions: 'many' }, 400, 'dimensions'],
  ],
  '/v1/images/generations': [
    ['prompt is required', {}, 400, 'prompt'],
    ['prompt must not be empty', { prompt: '' }, 400, 'prompt'],
    ['n at least 1', { ...IMAGE, n: 0 }, 400, 'n'],
    ['n at most 10', { ...IMAGE, n: 11 }, 400, 'n'],
    ['the newer family makes one image', { ...IMAGE, model: 'dall-e-3', n: 2 }, 422, 'n'],
    ['size is WxH', { ...IMAGE, size: 'big' }, 400, 'size'],
    ['newer family sizes', { ...IMAGE, model: 'dall-e-3', size: '512x512' }, 422, 'size'],
    ['older family sizes', { ...IMAGE, model: 'dall-e-2', size: '1792x1024' }, 422, 'size'],
    ['the default model is the older family', { ...IMAGE, size: '1024x1792' }, 422, 'size'],
    ['quality is an enumeration', { ...IMAGE, quality: 'ultra' }, 400, 'quality'],
    ['quality hd is for the newer family only', { ...IMAGE, model: 'dall-e-2', quality: 'hd' }, 422, 'quality'],
    ['style is vivid or natural', { ...IMAGE, model: 'dall-e-3', style: 'moody' }, 400, 'style'],
    ['style is for the newer family only', { ...IMAGE, model: 'dall-e-2', style: 'vivid' }, 422, 'style'],
    ['response_format is url or b64_json', { ...IMAGE, response_format: 'png' }, 400, 'response_format'],
    ['older family prompts up to 1000 characters', { model: 'dall-e-2', prompt: 'x'.repeat(1001) }, 422, 'prompt'],
    ['newer family prompts up to 4000 characters', { model: 'dall-e-3', prompt: 'x'.repeat(4001) }, 422, 'prompt'],
  ],
  '/v1/audio/speech': [
    ['model is required', without(SPEECH, 'model'), 400, 'model'],
    ['input is required', without(SPEECH, 'input'), 400, 'input'],
    ['input up to 4096 characters', { ...SPEECH, input: 'a'.repeat(4097) }, 400, 'input'],
    ['voice is required', without(SPEECH, 'voice'), 400, 'voice'],
    ['voice is an enumeration', { ...SPEECH, voice: 'robot' }, 400, 'voice'],
    ['speed at least 0.25', { ...SPEECH, speed: 0.2 }, 400, 'speed'],
    ['speed at most 4', { ...SPEECH, speed: 4.01 }, 400, 'speed'],
    ['response_format is an enumeration', { ...SPEECH, response_format: 'ogg' }, 400, 'response_format'],
  ],
  '/v1/batches': [
    ['input_file_id is required', without(BATCH, 'input_file_id'), 400, 'input_file_id'],
    ['endpoint is required', without(BATCH, 'endpoint'), 400, 'endpoint'],
    ['endpoint is chat, completions or embeddings', { ...BATCH, endpoint: '/v1/images/generations' }, 400, 'endpoint'],
    ['completion_window is required', without(BATCH, 'completion_window'), 400, 'completion_window'],
    ['completion_window is only 24h', { ...BATCH, completion_window: '48h' }, 400, 'completion_window'],
    ['metadata is an object of strings', { ...BATCH, metadata: 'tag' }, 400, 'metadata'],
  ],
  '/v1/fine_tuning/jobs': [
    ['training_file is required', without(FINE_TUNE, 'training_file'), 400, 'training_file'],
    ['model is required', without(FINE_TUNE, 'model'), 400, 'model'],
    ['suffix up to 40 characters', { ...FINE_TUNE, suffix: 's'.repeat(41) }, 400, 'suffix'],
    ['n_epochs 1 to 50 or auto', { ...FINE_TUNE, hyperparameters: { n_epochs: 0 } }, 400, 'hyperparameters.n_epochs'],
    ['n_epochs is not any word', { ...FINE_TUNE, hyperparameters: { n_epochs: 'many' } }, 400, 'hyperparameters.n_epochs'],
    ['batch_size at most 256', { ...FINE_TUNE, hyperparameters: { batch_size: 257 } }, 400, 'hyperparameters.batch_size'],
    ['learning_rate_multiplier above 0', { ...FINE_TUNE, hyperparameters: { learning_rate_multiplier: 0 } }, 400, 'hyperparameters.learning_rate_multiplier'],
    ['hyperparameters has known keys only', { ...FINE_TUNE, hyperparameters: { epochs: 3 } }, 400, 'hyperparameters.epochs'],
  ],
};

/** Valid bodies: they pass validation and reach the upstream as sent. */
const CONTROLS: Array<[path: string, body: Record<string, unknown>]> = [
  [
    '/v1/chat/completions',
    {
      ...CHAT,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: [{ type: 'text', text: 'Weather?' }] },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
      ],
      temperature: 2,
      top_p: 0,
      stop: ['a', 'b', 'c', 'd'],
      presence_penalty: -2,
      frequency_penalty: 2,
      n: 2,
      tools: [tool({ name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: {} } })],
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
      response_format: { type: 'json_object' },
      seed: 42,
      stream: false,
      user: 'u-1',
      some_provider_extension: { kept: true },
    },
  ],
  ['/v1/completions', { ...COMPLETION, prompt: ['a', 'b'], best_of: 3, n: 2, suffix: '!', echo: true, logprobs: 5, max_tokens: 0 }],
  ['/v1/embeddings', { ...EMBEDDING, input: ['a', 'b'], encoding_format: 'base64', dimensions: 256 }],
  ['/v1/images/generations', { ...IMAGE, model: 'dall-e-3', n: 1, size: '1792x1024', quality: 'hd', style: 'natural', response_format: 'b64_json' }],
  ['/v1/images/generations', { ...IMAGE, model: 'dall-e-2', n: 10, size: '256x256' }],
  ['/v1/images/generations', { ...IMAGE, model: 'gpt-image-1', n: 4, size: '1536x1024', quality: 'high' }],
  ['/v1/audio/speech', { ...SPEECH, input: 'a'.repeat(4096), voice: 'shimmer', speed: 4, response_format: 'wav' }],
  ['/v1/audio/speech', { ...SPEECH, speed: 0.25 }],
];

describe('request validation, endpoint by endpoint', () => {
  let upstream: FakeUpstream;
  let gw: TestGateway;

  beforeAll(async () => {
    const ok = { json: fixtureJson('openai', 'chat') };
    upstream = await new FakeUpstream()
      .on('POST /v1/chat/completions', ok)
      .on('POST /v1/completions', { json: fixtureJson('openai', 'completion') })
      .on('POST /v1/embeddings', { json: fixtureJson('openai', 'embeddings') })
      .on('POST /v1/images/generations', { json: { created: 1, data: [{ url: 'https://img.example/1.png' }] } })
      .on('POST /v1/audio/speech', { raw: Buffer.from('ID3-fake-mp3'), headers: { 'content-type': 'audio/mpeg' } })
      .start();
    gw = await startGateway({ providers: { openai: { baseUrl: `${upstream.url}/v1` } } });
  });
  afterAll(async () => {
    await gw?.close();
    await upstream?.stop();
  });

  const post = (path: string, body: unknown) =>
    fetch(`${gw.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-gateway-provider': 'openai', 'x-gateway-api-key': 'sk-validation-test-0001' },
      body: JSON.stringify(body),
    });

  for (const [path, cases] of Object.entries(RULES)) {
    describe(`POST ${path}`, () => {
      it.each(cases)('%s', async (_title, body, status, param) => {
        const before = upstream.requests.length;
        const res = await post(path, body);
        const answer: any = await res.json();
        expect({ status: res.status, param: answer.error?.param }).toEqual({ status, param });
        expect(answer).toMatchObject({
          status: 'failure',
          message: expect.any(String),
          error: {
            type: 'invalid_request_error',
            code: status === 422 ? 'semantic_error' : 'missing_required_parameter',
            message: answer.message,
            param,
            provider: null,
          },
        });
        expect(answer.message.startsWith(`${param}: `) || status === 422).toBe(true);
        expect(res.headers.get('x-gateway-request-id')).toMatch(/^[0-9a-f-]{36}$/);
        expect(upstream.requests.length).toBe(before);
      });
    });
  }

  it.each(CONTROLS)('a valid body for %s reaches the upstream untouched', async (path, body) => {
    const res = await post(path, body);
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    const sent = upstream.received(`POST ${path}`).at(-1)!;
    expect(sent.json()).toEqual(body);
  });

  it.each([
    ['0', 'limit'],
    ['101', 'limit'],
    ['ten', 'limit'],
  ])('list queries: limit=%s is refused', async (limit, param) => {
    const res = await fetch(`${gw.url}/v1/batches?limit=${limit}`, { headers: { 'x-gateway-provider': 'openai', 'x-gateway-api-key': 'sk-validation-test-0001' } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error).toMatchObject({ type: 'invalid_request_error', code: 'missing_required_parameter', param });
  });

  it('explains the problem in the message', async () => {
    const answer = (await (await post('/v1/chat/completions', { ...CHAT, stop: ['a', 'b', 'c', 'd', 'e'] })).json()) as any;
    expect(answer.message).toBe('stop: must have at most 4 items');
    const roles = (await (await post('/v1/chat/completions', { ...CHAT, messages: [{ role: 'robot' }] })).json()) as any;
    expect(roles.message).toBe('messages[0].role: must be one of system, developer, user, assistant, tool, function');
    const content = (await (await post('/v1/chat/completions', { ...CHAT, messages: [{ role: 'user', content: 42 }] })).json()) as any;
    expect(content.message).toBe('messages[0].content: must be string, null or array');
    const images = (await (await post('/v1/images/generations', { ...IMAGE, model: 'dall-e-3', n: 2 })).json()) as any;
    expect(images.message).toBe('dall-e-3 generates one image per request: n must be 1.');
  });
});
