import { describe, expect, it } from 'vitest';
import { toAnthropicRequest } from '../../../../../src/features/models/providers/anthropic/request.js';
import { toConverseRequest } from '../../../../../src/features/models/providers/bedrock/converse-request.js';
import { toCohereRequest } from '../../../../../src/features/models/providers/cohere/request.js';
import { GatewayError } from '../../../../../src/contract/errors/gateway-error.js';

const PNG = 'iVBORw0KGgoAAAANSUhEUg==';
const weatherTool = {
  type: 'function',
  function: { name: 'get_weather', description: 'Weather of a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
};
const timeTool = { type: 'function', function: { name: 'get_time', parameters: { type: 'object', properties: { tz: { type: 'string' } } } } };

function thrown(fn: () => unknown): GatewayError {
  try {
    fn();
  } catch (err) {
    return err as GatewayError;
  }
  throw new Error('expected an error');
}

describe('anthropic request table', () => {
  it('lifts system and developer messages into system, keeps turns, defaults max_tokens and clamps temperature', () => {
    const out = toAnthropicRequest({
      model: 'claude-3-5-sonnet-latest',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'developer', content: [{ type: 'text', text: 'Answer in French.' }] },
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: 'Bonjour' },
        { role: 'user', content: 'Again' },
      ],
      temperature: 1.7,
      top_p: 0.9,
      stop: 'END',
      user: 'user-42',
    });
    expect(out).toEqual({
      model: 'claude-3-5-sonnet-latest',
      system: 'Be brief.\n\nAnswer in French.',
      messages: [
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: [{ type: 'text', text: 'Bonjour' }] },
        { role: 'user', content: 'Again' },
      ],
      max_tokens: 4096,
      temperature: 1,
      top_p: 0.9,
      stop_sequences: ['END'],
      metadata: { user_id: 'user-42' },
    });
  });

  it('prefers max_completion_tokens, then max_tokens', () => {
    expect(toAnthropicRequest({ model: 'm', messages: [{ role: 'user', content: 'x' }], max_tokens: 10 }).max_tokens).toBe(10);
    expect(toAnthropicRequest({ model: 'm', messages: [{ role: 'user', content: 'x' }], max_tokens: 10, max_completion_tokens: 20 }).max_tokens).toBe(20);
  });

  it('maps image parts: data URLs to base64 sources, http URLs to url sources', () => {
    const out = toAnthropicRequest({
      model: 'm',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Compare' },
            { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
            { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg', detail: 'high' } },
          ],
        },
      ],
    });
    expect((out.messages as any)[0].content).toEqual([
      { type: 'text', text: 'Compare' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
      { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
    ]);
  });

  it('turns assistant tool_calls into tool_use blocks and merges consecutive tool results into one user turn', () => {
    const out = toAnthropicRequest({
      model: 'm',
      messages: [
        { role: 'user', content: 'Weather and time in Paris?' },
        {
          role: 'assistant',
          content: 'Checking.',
          tool_calls: [
            { id: 'toolu_01A', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
            { id: 'toolu_01B', type: 'function', function: { name: 'get_time', arguments: '{"tz":"Europe/Paris"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'toolu_01A', content: '18C' },
        { role: 'tool', tool_call_id: 'toolu_01B', content: [{ type: 'text', text: '14:00' }] },
        { role: 'user', content: 'Thanks' },
      ],
      tools: [weatherTool, timeTool],
    });
    expect(out.messages).toEqual([
      { role: 'user', content: 'Weather and time in Paris?' },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Checking.' },
          { type: 'tool_use', id: 'toolu_01A', name: 'get_weather', input: { city: 'Paris' } },
          { type: 'tool_use', id: 'toolu_01B', name: 'get_time', input: { tz: 'Europe/Paris' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_01A', content: '18C' },
          { type: 'tool_result', tool_use_id: 'toolu_01B', content: [{ type: 'text', text: '14:00' }] },
        ],
      },
      { role: 'user', content: 'Thanks' },
    ]);
    expect(out.tools).toEqual([
      { name: 'get_weather', description: 'Weather of a city', input_schema: weatherTool.function.parameters },
      { name: 'get_time', input_schema: timeTool.function.parameters },
    ]);
    expect(out.tool_choice).toBeUndefined();
  });

  it('maps tool_choice auto/none/required/named and parallel_tool_calls false', () => {
    const base = { model: 'm', messages: [{ role: 'user', content: 'x' }], tools: [weatherTool] };
    expect(toAnthropicRequest({ ...base, tool_choice: 'auto' }).tool_choice).toEqual({ type: 'auto' });
    expect(toAnthropicRequest({ ...base, tool_choice: 'none' }).tool_choice).toEqual({ type: 'none' });
    expect(toAnthropicRequest({ ...base, tool_choice: 'required' }).tool_choice).toEqual({ type: 'any' });
    expect(toAnthropicRequest({ ...base, tool_choice: { type: 'function', function: { name: 'get_weather' } } }).tool_choice).toEqual({
      type: 'tool',
      name: 'get_weather',
    });
    expect(toAnthropicRequest({ ...base, parallel_tool_calls: false }).tool_choice).toEqual({ type: 'auto', disable_parallel_tool_use: true });
    expect(toAnthropicRequest({ ...base, tool_choice: 'required', parallel_tool_calls: false }).tool_choice).toEqual({ type: 'any', disable_parallel_tool_use: true });
  });

  it('answers json_schema through a forced json_response tool, json_object through the system prompt', () => {
    const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
    const viaTool = toAnthropicRequest({
      model: 'm',
      messages: [{ role: 'user', content: 'x' }],
      response_format: { type: 'json_schema', json_schema: { name: 'place', schema } },
    });
    expect(viaTool.tools).toEqual([{ name: 'json_response', description: expect.stringContaining('place'), input_schema: schema }]);
    expect(viaTool.tool_choice).toEqual({ type: 'tool', name: 'json_response' });
    expect(viaTool.system).toBeUndefined();
    const viaPrompt = toAnthropicRequest({
      model: 'm',
      messages: [
        { role: 'system', content: 'S' },
        { role: 'user', content: 'x' },
      ],
      response_format: { type: 'json_object' },
    });
    expect(viaPrompt.system).toMatch(/^S\n\nAnswer with one JSON object/);
    expect(viaPrompt.tools).toBeUndefined();
    const besideTools = toAnthropicRequest({
      model: 'm',
      messages: [{ role: 'user', content: 'x' }],
      tools: [weatherTool],
      response_format: { type: 'json_schema', json_schema: { name: 'place', schema } },
    });
    expect(besideTools.tools).toHaveLength(1);
    expect(besideTools.system).toContain(JSON.stringify(schema));
  });

  it('drops OpenAI-only fields, passes Anthropic extras, refuses n > 1 (422: well-formed, but one choice is all anthropic answers) and bad tool arguments (400)', () => {
    const out = toAnthropicRequest({ model: 'm', messages: [{ role: 'user', content: 'x' }], top_k: 5, logprobs: true, stream_options: { include_usage: true }, seed: 3, n: 1 });
    expect(out).toEqual({ model: 'm', messages: [{ role: 'user', content: 'x' }], max_tokens: 4096, top_k: 5 });
    const n = thrown(() => toAnthropicRequest({ model: 'm', messages: [{ role: 'user', content: 'x' }], n: 2 }));
    expect(n.status).toBe(422);
    expect(n.code).toBe('semantic_error');
    expect(n.param).toBe('n');
    const args = thrown(() =>
      toAnthropicRequest({
        model: 'm',
        messages: [{ role: 'assistant', content: null, tool_calls: [{ id: 't', type: 'function', function: { name: 'f', arguments: '{oops' } }] }],
      }),
    );
    expect(args.status).toBe(400);
    expect(args.param).toBe('messages[0].tool_calls[0].function.arguments');
  });
});

describe('anthropic refusals: 422 for a well-formed value anthropic cannot take, 400 for a malformed one', () => {
  const user = (content: unknown) => ({ model: 'm', messages: [{ role: 'user', content }] });
  const cases: Array<[string, Record<string, unknown>, number, string]> = [
    ['a zip file', user([{ type: 'file', file: { file_data: `data:application/zip;base64,${PNG}` } }]), 422, 'messages[0].content[0]'],
    ['a file by id (anthropic takes files inline only)', user([{ type: 'file', file: { file_id: 'file-abc' } }]), 422, 'messages[0].content[0].file'],
    ['a file part naming no file', user([{ type: 'file', file: {} }]), 400, 'messages[0].content[0].file'],
    ['an input_audio part', user([{ type: 'input_audio', input_audio: { data: PNG, format: 'wav' } }]), 422, 'messages[0].content[0].type'],
    ['a part type no API has', user([{ type: 'hologram' }]), 400, 'messages[0].content[0].type'],
    [
      'role function',
      {
        model: 'm',
        messages: [
          { role: 'user', content: 'x' },
          { role: 'function', name: 'f', content: 'y' },
        ],
      },
      422,
      'messages[1].role',
    ],
    ['a role no API has', { model: 'm', messages: [{ role: 'robot', content: 'x' }] }, 400, 'messages[0].role'],
    ['reasoning_effort high with max_tokens 500', { model: 'm', messages: [{ role: 'user', content: 'x' }], reasoning_effort: 'high', max_tokens: 500 }, 422, 'max_tokens'],
  ];
  it.each(cases)('%s', (_name, body, status, param) => {
    const err = thrown(() => toAnthropicRequest(body));
    expect({ status: err.status, code: err.code, param: err.param }).toEqual({ status, code: status === 422 ? 'semantic_error' : 'missing_required_parameter', param });
  });
});

describe('bedrock converse table', () => {
  it('builds system blocks, inferenceConfig, and passes unknown fields as additionalModelRequestFields', () => {
    const out = toConverseRequest({
      model: 'anthropic.claude-3-haiku-20240307-v1:0',
      messages: [
        { role: 'system', content: 'Be brief.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image_url', image_url: { url: `data:image/jpeg;base64,${PNG}` } },
          ],
        },
      ],
      max_tokens: 300,
      temperature: 1.5,
      top_p: 0.8,
      stop: ['STOP', 'END'],
      top_k: 40,
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(out).toEqual({
      messages: [{ role: 'user', content: [{ text: 'What is this?' }, { image: { format: 'jpeg', source: { bytes: PNG } } }] }],
      system: [{ text: 'Be brief.' }],
      inferenceConfig: { maxTokens: 300, temperature: 1, topP: 0.8, stopSequences: ['STOP', 'END'] },
      additionalModelRequestFields: { top_k: 40 },
    });
  });

  it('refuses remote image URLs (Converse takes image bytes only): 422, a well-formed value bedrock cannot take', () => {
    const err = thrown(() => toConverseRequest({ model: 'm', messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://x/y.png' } }] }] }));
    expect(err.status).toBe(422);
    expect(err.code).toBe('semantic_error');
    expect(err.message).toMatch(/bedrock takes images only inline/);
  });

  it('refuses with 422 what bedrock cannot take of a well-formed request (n > 1, image and file types, role function, a thinking budget max_tokens leaves no room for)', () => {
    const user = (content: unknown) => ({ model: 'm', messages: [{ role: 'user', content }] });
    const refusals: Array<[string, Record<string, unknown>, string]> = [
      ['n: 2', { model: 'm', messages: [{ role: 'user', content: 'x' }], n: 2 }, 'n'],
      ['a BMP image', user([{ type: 'image_url', image_url: { url: `data:image/bmp;base64,${PNG}` } }]), 'messages[0].content[0]'],
      ['a zip file', user([{ type: 'file', file: { file_data: `data:application/zip;base64,${PNG}`, filename: 'a.zip' } }]), 'messages[0].content[0]'],
      [
        'role function',
        {
          model: 'm',
          messages: [
            { role: 'user', content: 'x' },
            { role: 'function', name: 'f', content: 'y' },
          ],
        },
        'messages[1].role',
      ],
      [
        'reasoning_effort high with max_tokens 500',
        { model: 'anthropic.claude-3-7-sonnet-20250219-v1:0', messages: [{ role: 'user', content: 'x' }], reasoning_effort: 'high', max_tokens: 500 },
        'max_tokens',
      ],
    ];
    for (const [name, body, param] of refusals) {
      const err = thrown(() => toConverseRequest(body));
      expect({ name, status: err.status, code: err.code, param: err.param }).toEqual({ name, status: 422, code: 'semantic_error', param });
    }
    expect(toConverseRequest({ model: 'm', messages: [{ role: 'user', content: 'x' }], n: 1 }).messages).toEqual([{ role: 'user', content: [{ text: 'x' }] }]);
    // a role no API has is malformed: 400
    const role = thrown(() => toConverseRequest({ model: 'm', messages: [{ role: 'robot', content: 'x' }] }));
    expect([role.status, role.param]).toEqual([400, 'messages[0].role']);
  });

  it('maps tool calls, merges tool results with the next user turn, and maps tool choice', () => {
    const out = toConverseRequest({
      model: 'm',
      messages: [
        { role: 'user', content: 'Paris?' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'tooluse_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
        { role: 'tool', tool_call_id: 'tooluse_1', content: '18C' },
        { role: 'user', content: 'And?' },
      ],
      tools: [weatherTool],
      tool_choice: 'required',
    });
    expect(out.messages).toEqual([
      { role: 'user', content: [{ text: 'Paris?' }] },
      { role: 'assistant', content: [{ toolUse: { toolUseId: 'tooluse_1', name: 'get_weather', input: { city: 'Paris' } } }] },
      { role: 'user', content: [{ toolResult: { toolUseId: 'tooluse_1', content: [{ text: '18C' }] } }, { text: 'And?' }] },
    ]);
    expect(out.toolConfig).toEqual({
      tools: [{ toolSpec: { name: 'get_weather', description: 'Weather of a city', inputSchema: { json: weatherTool.function.parameters } } }],
      toolChoice: { any: {} },
    });
    const base = { model: 'm', messages: [{ role: 'user', content: 'x' }], tools: [weatherTool] };
    expect((toConverseRequest({ ...base, tool_choice: 'auto' }).toolConfig as any).toolChoice).toEqual({ auto: {} });
    expect((toConverseRequest({ ...base, tool_choice: { type: 'function', function: { name: 'get_weather' } } }).toolConfig as any).toolChoice).toEqual({
      tool: { name: 'get_weather' },
    });
    expect(toConverseRequest({ ...base, tool_choice: 'none' }).toolConfig).toBeUndefined();
    // Converse needs toolConfig once the conversation holds tool blocks: "none" then keeps the tools without a choice
    const withHistory = toConverseRequest({ model: 'm', messages: [{ role: 'tool', tool_call_id: 'a', content: 'b' }], tools: [weatherTool], tool_choice: 'none' });
    expect(withHistory.toolConfig).toEqual({ tools: [expect.objectContaining({ toolSpec: expect.objectContaining({ name: 'get_weather' }) })] });
  });

  it('asks for JSON in the system prompt', () => {
    const out = toConverseRequest({ model: 'm', messages: [{ role: 'user', content: 'x' }], response_format: { type: 'json_object' } });
    expect(out.system).toEqual([{ text: expect.stringMatching(/^Answer with one JSON object/) }]);
  });
});

describe('cohere chat table', () => {
  it('refuses with 422 what cohere cannot take of a well-formed request (n > 1, files, role function)', () => {
    const refusals: Array<[string, Record<string, unknown>, string]> = [
      ['n: 2', { model: 'm', messages: [{ role: 'user', content: 'x' }], n: 2 }, 'n'],
      ['a file', { model: 'm', messages: [{ role: 'user', content: [{ type: 'file', file: { file_data: `data:application/pdf;base64,${PNG}` } }] }] }, 'messages[0].content[0]'],
      [
        'role function',
        {
          model: 'm',
          messages: [
            { role: 'user', content: 'x' },
            { role: 'function', name: 'f', content: 'y' },
          ],
        },
        'messages[1].role',
      ],
    ];
    for (const [name, body, param] of refusals) {
      const err = thrown(() => toCohereRequest(body));
      expect({ name, status: err.status, code: err.code, param: err.param }).toEqual({ name, status: 422, code: 'semantic_error', param });
    }
    expect(toCohereRequest({ model: 'm', messages: [{ role: 'user', content: 'x' }], n: 1 }).messages).toEqual([{ role: 'user', content: 'x' }]);
  });

  it('keeps system messages, maps top_p to p (clamped), stop to stop_sequences, and passes Cohere extras', () => {
    const out = toCohereRequest({
      model: 'command-r-plus',
      messages: [
        { role: 'developer', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
      ],
      top_p: 1,
      stop: 'END',
      max_completion_tokens: 99,
      seed: 7,
      frequency_penalty: 1.5,
      k: 10,
      logprobs: true,
    });
    expect(out).toEqual({
      model: 'command-r-plus',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
      ],
      p: 0.99,
      stop_sequences: ['END'],
      max_tokens: 99,
      seed: 7,
      frequency_penalty: 1,
      k: 10,
    });
  });

  it('maps assistant text beside tool calls to tool_plan, tool results to role tool', () => {
    const out = toCohereRequest({
      model: 'm',
      messages: [
        { role: 'user', content: 'Paris?' },
        {
          role: 'assistant',
          content: 'I will look it up.',
          tool_calls: [{ id: 'get_weather_x1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
        },
        { role: 'tool', tool_call_id: 'get_weather_x1', content: '18C' },
      ],
    });
    expect(out.messages).toEqual([
      { role: 'user', content: 'Paris?' },
      {
        role: 'assistant',
        tool_plan: 'I will look it up.',
        tool_calls: [{ id: 'get_weather_x1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
      },
      { role: 'tool', tool_call_id: 'get_weather_x1', content: '18C' },
    ]);
  });

  it('maps tool_choice (a named tool keeps only that tool) and response_format', () => {
    const base = { model: 'm', messages: [{ role: 'user', content: 'x' }], tools: [weatherTool, timeTool] };
    expect(toCohereRequest({ ...base, tool_choice: 'auto' }).tool_choice).toBeUndefined();
    expect(toCohereRequest({ ...base, tool_choice: 'none' }).tool_choice).toBe('NONE');
    expect(toCohereRequest({ ...base, tool_choice: 'required' }).tool_choice).toBe('REQUIRED');
    const named = toCohereRequest({ ...base, tool_choice: { type: 'function', function: { name: 'get_time' } } });
    expect(named.tool_choice).toBe('REQUIRED');
    expect((named.tools as any[]).map((t: any) => t.function.name)).toEqual(['get_time']);
    const schema = { type: 'object', properties: { a: { type: 'number' } } };
    expect(
      toCohereRequest({ model: 'm', messages: [{ role: 'user', content: 'x' }], response_format: { type: 'json_schema', json_schema: { name: 'n', schema } } }).response_format,
    ).toEqual({
      type: 'json_object',
      json_schema: schema,
    });
  });
});
