import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { FakeUpstream } from '../helpers/fake-upstream.js';
import { fixtureChunks, fixtureJson } from '../helpers/fixtures.js';
import { startGateway, type TestGateway } from '../helpers/start-gateway.js';
import { chatRequestShapes, SDK_VERSION } from '../helpers/openai-sdk-types.js';

/**
 * Replays the chat request types of the installed openai SDK (read from its .d.ts, so a newer
 * SDK with a new field or union member fails here until it is replayed): every field, every
 * null a field may take, every tool, tool_choice, role, content part, tool call, response
 * format and reasoning effort. Through the SDK client to openai, each body must reach the
 * upstream exactly as sent; to anthropic (a translation), each is translated (the upstream
 * body holds only Anthropic fields) or refused with a 422 semantic_error naming the field and the
 * provider (each refused value is well-formed, one OpenAI takes, that anthropic cannot honour).
 */
type Json = Record<string, any>;
interface Variant {
  name: string;
  body: Json;
  /** The param of anthropic's 422; absent: anthropic translates it. */
  refusedAt?: string;
  /** Checks of the body anthropic received. */
  translated?: (sent: Json) => void;
}

const SHAPES = chatRequestShapes();
const USER = { role: 'user', content: 'Hi' };
const BASE = { model: 'gpt-4o-mini', messages: [USER] };
const FUNCTION_TOOL = {
  type: 'function',
  function: { name: 'get_weather', description: 'Weather of a city', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
};
const customTool = (format?: Json) => ({ type: 'custom', custom: { name: 'run_code', description: 'Runs Python', ...(format ? { format } : {}) } });

const CUSTOM_FORMATS: Record<string, Json> = {
  text: { type: 'text' },
  grammar: { type: 'grammar', grammar: { definition: 'start: "yes" | "no"', syntax: 'lark' } },
};
const TOOLS: Record<string, Json> = { function: FUNCTION_TOOL, custom: customTool() };
const TOOL_CALLS: Record<string, Json> = {
  function: { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
  custom: { id: 'call_2', type: 'custom', custom: { name: 'run_code', input: 'print(1)' } },
};
const TOOL_CHOICE_OBJECTS: Record<string, (mode?: string) => Json> = {
  function: () => ({ type: 'function', function: { name: 'get_weather' } }),
  custom: () => ({ type: 'custom', custom: { name: 'run_code' } }),
  allowed_tools: (mode = 'auto') => ({ type: 'allowed_tools', allowed_tools: { mode, tools: [{ type: 'function', function: { name: 'get_weather' } }] } }),
};
const PDF = `data:application/pdf;base64,${Buffer.from('%PDF-1.4 test').toString('base64')}`;
const USER_PARTS: Record<string, Json> = {
  text: { type: 'text', text: 'What is in this picture?' },
  image_url: { type: 'image_url', image_url: { url: 'https://example.com/cat.png', detail: 'low' } },
  input_audio: { type: 'input_audio', input_audio: { data: Buffer.from('RIFF').toString('base64'), format: 'wav' } },
  file: { type: 'file', file: { file_data: PDF, filename: 'doc.pdf' } },
};
const ASSISTANT_PARTS: Record<string, Json> = { text: { type: 'text', text: 'Earlier answer.' }, refusal: { type: 'refusal', refusal: 'I cannot help with that.' } };
const ROLE_MESSAGES: Record<string, Json[]> = {
  developer: [{ role: 'developer', content: 'Be brief.' }, USER],
  system: [{ role: 'system', content: [{ type: 'text', text: 'Be brief.' }] }, USER],
  user: [{ role: 'user', content: 'Hi', name: 'ada' }],
  assistant: [USER, { role: 'assistant', content: 'Hello!', refusal: null, audio: null }, USER],
  tool: [USER, { role: 'assistant', content: null, tool_calls: [TOOL_CALLS.function] }, { role: 'tool', tool_call_id: 'call_1', content: '{"temp":21}' }],
  function: [
    USER,
    { role: 'assistant', content: null, function_call: { name: 'get_weather', arguments: '{}' } },
    { role: 'function', name: 'get_weather', content: '{"temp":21}' },
  ],
};
const RESPONSE_FORMATS: Record<string, Json> = {
  text: { type: 'text' },
  json_object: { type: 'json_object' },
  json_schema: { type: 'json_schema', json_schema: { name: 'answer', schema: { type: 'object', properties: { ok: { type: 'boolean' } } }, strict: true } },
};

/** Sample values of every request field, beside those whose variants are built from the SDK's literals below. */
const FIELD_SAMPLES: Record<string, Json[]> = {
  model: [{ model: 'gpt-4o' }],
  messages: [{ messages: [USER] }],
  audio: [{ modalities: ['text', 'audio'], audio: { voice: 'alloy', format: 'wav' } }],
  frequency_penalty: [{ frequency_penalty: 0.5 }],
  function_call: [{ functions: [FUNCTION_TOOL.function], function_call: { name: 'get_weather' } }],
  functions: [{ functions: [FUNCTION_TOOL.function], function_call: 'auto' }],
  logit_bias: [{ logit_bias: { '50256': -100 } }],
  logprobs: [{ logprobs: true, top_logprobs: 2 }],
  max_completion_tokens: [{ max_completion_tokens: 64 }],
  max_tokens: [{ max_tokens: 64 }],
  metadata: [{ metadata: { team: 'search' } }],
  modalities: [{ modalities: ['text'] }],
  moderation: [{ moderation: { model: 'omni-moderation-latest', policy: { input: { mode: 'block' }, output: { mode: 'score' } } } }],
  n: [{ n: 1 }, { n: 2 }],
  parallel_tool_calls: [{ tools: [FUNCTION_TOOL], parallel_tool_calls: false }],
  prediction: [{ prediction: { type: 'content', content: 'Hello' } }, { prediction: { type: 'content', content: [{ type: 'text', text: 'Hello' }] } }],
  presence_penalty: [{ presence_penalty: -0.5 }],
  prompt_cache_key: [{ prompt_cache_key: 'tenant-1' }],
  prompt_cache_options: [{ prompt_cache_options: { mode: 'explicit', ttl: '30m' } }],
  safety_identifier: [{ safety_identifier: 'user-hash-1' }],
  seed: [{ seed: 7 }],
  stop: [{ stop: 'END' }, { stop: ['END', 'STOP'] }],
  store: [{ store: true }],
  stream: [{ stream: true }, { stream: false }],
  stream_options: [{ stream: true, stream_options: { include_usage: true, include_obfuscation: false } }],
  temperature: [{ temperature: 0.2 }],
  top_logprobs: [{ logprobs: true, top_logprobs: 0 }],
  top_p: [{ top_p: 0.9 }],
  user: [{ user: 'user-1' }],
  web_search_options: [{ web_search_options: { search_context_size: 'low', user_location: { type: 'approximate', approximate: { city: 'Paris', country: 'FR' } } } }],
};

/** What anthropic's translation refuses, by variant name, with the param its 422 names. */
const ANTHROPIC_REFUSES: Record<string, string> = {
  'n #1': 'n',
  audio: 'audio',
  moderation: 'moderation',
  web_search_options: 'web_search_options',
  'tools: custom': 'tools[1].type',
  'custom tool format: text': 'tools[0].type',
  'custom tool format: grammar': 'tools[0].type',
  'tool_choice: custom': 'tool_choice.type',
  'assistant tool_calls: custom': 'messages[1].tool_calls[0].type',
  'user content part: input_audio': 'messages[0].content[0].type',
  'role: function': 'messages[2].role',
};

const ANTHROPIC_FIELDS = new Set([
  'model',
  'messages',
  'system',
  'max_tokens',
  'metadata',
  'stop_sequences',
  'stream',
  'temperature',
  'top_p',
  'top_k',
  'tools',
  'tool_choice',
  'thinking',
]);

function variants(): Variant[] {
  const out: Variant[] = [];
  const add = (name: string, body: Json, translated?: Variant['translated']) => out.push({ name, body: { ...BASE, ...body }, refusedAt: ANTHROPIC_REFUSES[name], translated });
  for (const [field, samples] of Object.entries(FIELD_SAMPLES)) samples.forEach((sample, i) => add(samples.length > 1 ? `${field} #${i}` : field, sample));
  for (const field of SHAPES.nullable) add(`${field}: null`, { [field]: null });
  for (const [field, literals] of Object.entries(SHAPES.literalFields)) for (const literal of literals) add(`${field}: ${literal}`, { [field]: literal });
  for (const effort of SHAPES.reasoningEfforts) add(`reasoning_effort: ${effort}`, { reasoning_effort: effort, max_tokens: 2048 * 40 });
  for (const type of SHAPES.tools) add(`tools: ${type}`, { tools: type === 'function' ? [TOOLS[type]] : [FUNCTION_TOOL, TOOLS[type]] });
  for (const type of SHAPES.customToolFormats) add(`custom tool format: ${type}`, { tools: [customTool(CUSTOM_FORMATS[type])] });
  for (const choice of SHAPES.toolChoiceStrings) add(`tool_choice: ${choice}`, { tools: [FUNCTION_TOOL], tool_choice: choice });
  for (const type of SHAPES.toolChoiceObjects) {
    if (type !== 'allowed_tools') {
      add(`tool_choice: ${type}`, { tools: type === 'function' ? [FUNCTION_TOOL] : [FUNCTION_TOOL, customTool()], tool_choice: TOOL_CHOICE_OBJECTS[type]!() });
      continue;
    }
    for (const mode of SHAPES.allowedToolsModes) {
      add(
        `tool_choice: allowed_tools (${mode})`,
        { tools: [FUNCTION_TOOL, customTool(), { type: 'function', function: { name: 'get_time' } }], tool_choice: TOOL_CHOICE_OBJECTS[type]!(mode) },
        (sent) => {
          expect(sent.tools.map((t: Json) => t.name)).toEqual(['get_weather']);
          expect(sent.tool_choice).toEqual({ type: mode === 'required' ? 'any' : 'auto' });
        },
      );
    }
  }
  for (const type of SHAPES.toolCalls) {
    const id = TOOL_CALLS[type]?.id;
    add(`assistant tool_calls: ${type}`, {
      messages: [USER, { role: 'assistant', content: null, tool_calls: [TOOL_CALLS[type]] }, { role: 'tool', tool_call_id: id, content: 'done' }],
    });
  }
  for (const role of SHAPES.roles) add(`role: ${role}`, { messages: ROLE_MESSAGES[role] });
  for (const type of SHAPES.userParts) add(`user content part: ${type}`, { messages: [{ role: 'user', content: [USER_PARTS[type]] }] });
  for (const type of SHAPES.assistantParts) add(`assistant content part: ${type}`, { messages: [USER, { role: 'assistant', content: [ASSISTANT_PARTS[type]] }, USER] });
  for (const type of SHAPES.responseFormats) add(`response_format: ${type}`, { response_format: RESPONSE_FORMATS[type] });
  return out;
}

describe(`the openai SDK's chat request types (openai ${SDK_VERSION}) through the gateway`, () => {
  let openai: FakeUpstream;
  let anthropic: FakeUpstream;
  let gw: TestGateway;
  const client = (provider: string) => new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: 'sk-test-key-123456789', maxRetries: 0, defaultHeaders: { 'x-gateway-provider': provider } });

  beforeAll(async () => {
    openai = await new FakeUpstream()
      .on('POST /v1/chat/completions', (req, res) => {
        if (req.json().stream) {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          for (const chunk of fixtureChunks('openai', 'chat')) res.write(chunk);
          res.end();
        } else {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify(fixtureJson('openai', 'chat')));
        }
      })
      .start();
    anthropic = await new FakeUpstream()
      .on('POST /v1/messages', (req, res) => {
        if (req.json().stream) {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          for (const chunk of fixtureChunks('anthropic', 'text')) res.write(chunk);
          res.end();
        } else {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify(fixtureJson('anthropic', 'text')));
        }
      })
      .start();
    gw = await startGateway({ providers: { openai: { baseUrl: `${openai.url}/v1` }, anthropic: { baseUrl: anthropic.url } } });
  });
  afterAll(async () => {
    await gw?.close();
    await openai?.stop();
    await anthropic?.stop();
  });

  /** Sends a body through the SDK; the error of a refused request, or undefined. */
  async function send(provider: string, body: Json): Promise<InstanceType<typeof OpenAI.APIError> | undefined> {
    try {
      const answer: any = await client(provider).chat.completions.create(body as any);
      if (body.stream) for await (const _chunk of answer) void _chunk;
      return undefined;
    } catch (err) {
      if (err instanceof OpenAI.APIError) return err;
      throw err;
    }
  }

  it('has a sample for every field of ChatCompletionCreateParams and the test knows every union member', () => {
    const covered = new Set([...Object.keys(FIELD_SAMPLES), ...Object.keys(SHAPES.literalFields), 'reasoning_effort', 'tools', 'tool_choice', 'response_format']);
    expect(SHAPES.fields.filter((f) => !covered.has(f))).toEqual([]);
    expect(Object.keys(TOOLS).sort()).toEqual([...SHAPES.tools].sort());
    expect(Object.keys(CUSTOM_FORMATS).sort()).toEqual([...SHAPES.customToolFormats].sort());
    expect(Object.keys(TOOL_CHOICE_OBJECTS).sort()).toEqual([...SHAPES.toolChoiceObjects].sort());
    expect(Object.keys(TOOL_CALLS).sort()).toEqual([...SHAPES.toolCalls].sort());
    expect(Object.keys(ROLE_MESSAGES).sort()).toEqual([...SHAPES.roles].sort());
    expect(Object.keys(USER_PARTS).sort()).toEqual([...SHAPES.userParts].sort());
    expect(Object.keys(ASSISTANT_PARTS).sort()).toEqual([...SHAPES.assistantParts].sort());
    expect(Object.keys(RESPONSE_FORMATS).sort()).toEqual([...SHAPES.responseFormats].sort());
    const names = new Set(variants().map((v) => v.name));
    expect(Object.keys(ANTHROPIC_REFUSES).filter((n) => !names.has(n))).toEqual([]);
  });

  it('passes every variant to openai exactly as the SDK sent it', async () => {
    const failures: string[] = [];
    for (const variant of variants()) {
      const before = openai.received('POST /v1/chat/completions').length;
      const err = await send('openai', variant.body);
      const got = openai.received('POST /v1/chat/completions');
      if (err) failures.push(`${variant.name}: ${err.status} ${err.message}`);
      else if (got.length !== before + 1) failures.push(`${variant.name}: nothing reached the upstream`);
      else if (JSON.stringify(got.at(-1)!.json()) !== JSON.stringify(variant.body)) failures.push(`${variant.name}: the upstream body differs: ${got.at(-1)!.body.toString()}`);
    }
    expect(failures).toEqual([]);
  });

  it('gives a Responses request with an allowed_tools choice to anthropic as the tools it allows, and max effort to openai as it is', async () => {
    const tools = [
      { type: 'function' as const, name: 'get_weather', parameters: { type: 'object', properties: {} }, strict: false },
      { type: 'function' as const, name: 'get_time', parameters: { type: 'object', properties: {} }, strict: false },
    ];
    await client('anthropic').responses.create({
      model: 'claude-sonnet-4-5',
      input: 'Weather in Paris?',
      store: false,
      tools,
      tool_choice: { type: 'allowed_tools', mode: 'required', tools: [{ type: 'function', name: 'get_time' }] },
    });
    const sent = anthropic.received('POST /v1/messages').at(-1)!.json();
    expect(sent.tools.map((t: Json) => t.name)).toEqual(['get_time']);
    expect(sent.tool_choice).toEqual({ type: 'any' });

    const openaiResponses = new FakeUpstream().on('POST /v1/responses', { json: fixtureJson('openai', 'responses') });
    await openaiResponses.start();
    const gw2 = await startGateway({ providers: { openai: { baseUrl: `${openaiResponses.url}/v1` } } });
    try {
      const body = { model: 'gpt-5', input: 'Hi', store: false, reasoning: { effort: 'max' as const } };
      await new OpenAI({ baseURL: `${gw2.url}/v1`, apiKey: 'sk-test-key-123456789', maxRetries: 0, defaultHeaders: { 'x-gateway-provider': 'openai' } }).responses.create(body);
      expect(openaiResponses.received('POST /v1/responses').at(-1)!.json()).toEqual(body);
    } finally {
      await gw2.close();
      await openaiResponses.stop();
    }
  });

  it('translates every variant for anthropic, or refuses it with a 422 semantic_error naming the field and the provider', async () => {
    const failures: string[] = [];
    for (const variant of variants()) {
      const before = anthropic.received('POST /v1/messages').length;
      const err = await send('anthropic', variant.body);
      const got = anthropic.received('POST /v1/messages');
      if (variant.refusedAt) {
        const error = err?.error as Json | undefined;
        if (
          err?.status !== 422 ||
          error?.type !== 'invalid_request_error' ||
          error?.code !== 'semantic_error' ||
          error?.param !== variant.refusedAt ||
          !/anthropic/.test(String(error?.message))
        ) {
          failures.push(`${variant.name}: expected a 422 at ${variant.refusedAt} naming anthropic, got ${err?.status ?? 200} ${JSON.stringify(error ?? {})}`);
        }
        if (got.length !== before) failures.push(`${variant.name}: a refused request reached the upstream`);
        continue;
      }
      if (err) {
        failures.push(`${variant.name}: ${err.status} ${err.message}`);
        continue;
      }
      const sent = got.at(-1)!.json();
      const foreign = Object.keys(sent).filter((k) => !ANTHROPIC_FIELDS.has(k));
      if (foreign.length > 0) failures.push(`${variant.name}: anthropic received fields it does not know: ${foreign.join(', ')}`);
      try {
        variant.translated?.(sent);
      } catch (e) {
        failures.push(`${variant.name}: ${(e as Error).message}`);
      }
    }
    expect(failures).toEqual([]);
  });
});
