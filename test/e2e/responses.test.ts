/**
 * /v1/responses end to end through the official `openai` SDK (responses.create,
 * responses.stream, retrieve, delete, cancel, input items) against fakes: forwarded to
 * openai, translated through chat for anthropic, google and bedrock (tools and reasoning
 * included); store and previous_response_id kept in the gateway's store (SQLite here,
 * PostgreSQL in a schema of its own at the end), on any provider.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import pg from 'pg';
import { FakeUpstream, type FakeReply } from '../helpers/fake-upstream.js';
import { startGateway, type TestGateway } from '../helpers/start-gateway.js';
import { fixtureChunks, fixtureJson } from '../helpers/fixtures.js';
import { eventStreamReply } from '../conformance/replies.js';

const AWS = { 'x-gateway-aws-access-key-id': 'AKIAIOSFODNN7EXAMPLE', 'x-gateway-aws-secret-access-key': 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' };
const BEDROCK_CLAUDE = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const PG_URL = process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const WEATHER = {
  type: 'function' as const,
  name: 'get_weather',
  description: 'Weather of a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  strict: false,
};

let fake: FakeUpstream;

function sdk(gw: TestGateway, provider: string, headers: Record<string, string> = {}, key = 'sk-responses-key-1') {
  return new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key, defaultHeaders: { 'x-gateway-provider': provider, ...headers }, maxRetries: 0 });
}

function sse(provider: string, name: string): FakeReply {
  return { chunks: fixtureChunks(provider, name), headers: { 'content-type': 'text/event-stream' } };
}

/** The SDK's own additions to what it streamed (parsed outputs), removed. */
function unparsed(value: any): any {
  if (Array.isArray(value)) return value.map(unparsed);
  if (value === null || typeof value !== 'object') return value;
  const out: any = {};
  for (const [k, v] of Object.entries(value)) if (k !== 'parsed' && k !== 'parsed_arguments' && k !== 'output_parsed') out[k] = unparsed(v);
  return out;
}

/** A response without the fields that differ between two runs of the same answer. */
function stable(response: any): any {
  const { created_at: _created, output_text: _text, ...rest } = unparsed(response);
  return rest;
}

function providers(url: string) {
  return {
    openai: { baseUrl: `${url}/oai` },
    anthropic: { baseUrl: url },
    google: { baseUrl: url },
    bedrock: { baseUrl: url, region: 'us-east-1' },
    'azure-openai': { baseUrl: `${url}/azure` },
  };
}

beforeAll(async () => {
  fake = await new FakeUpstream().start();
});
afterAll(async () => {
  await fake?.stop();
});

describe('responses (SQLite store)', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startGateway({ providers: providers(fake.url) });
  });
  afterAll(async () => {
    await gw?.close();
  });

  describe('openai: forwarded', () => {
    it('sends the request bytes to /responses, answers the upstream bytes, keeps the response for retrieve and input_items', async () => {
      const answer = fixtureJson('openai', 'responses');
      fake.on('POST /oai/responses', { raw: JSON.stringify(answer), headers: { 'content-type': 'application/json', 'x-request-id': 'req_resp_1' } });
      const body = { model: 'gpt-4.1', input: 'Tell me a three sentence bedtime story about a unicorn.' };
      const created = await sdk(gw, 'openai').responses.create(body);
      expect(stable(created)).toEqual(stable(answer));
      expect(created._request_id).toBe('req_resp_1');
      expect(fake.received('POST /oai/responses').at(-1)!.body.toString()).toBe(JSON.stringify(body));
      const before = fake.requests.length;
      expect(stable(await sdk(gw, 'openai').responses.retrieve(answer.id))).toEqual(stable(answer));
      const items = await sdk(gw, 'openai').responses.inputItems.list(answer.id);
      expect(items.data).toEqual([{ id: expect.stringMatching(/^msg_/), type: 'message', role: 'user', content: [{ type: 'input_text', text: body.input }] }]);
      expect(fake.requests.length).toBe(before);
    });

    it('streams the upstream events; responses.stream assembles them', async () => {
      fake.on('POST /oai/responses', sse('openai', 'responses'));
      const stream = sdk(gw, 'openai').responses.stream({ model: 'gpt-4.1', input: 'A story.' });
      const events: string[] = [];
      stream.on('event', (e) => events.push(e.type));
      const final = await stream.finalResponse();
      expect(stable(final)).toEqual(stable(fixtureJson('openai', 'responses')));
      expect(events[0]).toBe('response.created');
      expect(events.at(-1)).toBe('response.completed');
    });

    it('leaves previous_response_id to openai for a response it keeps itself; ids the gateway does not keep go to openai', async () => {
      const answer = fixtureJson('openai', 'responses');
      fake.on('POST /oai/responses', { json: answer });
      await sdk(gw, 'openai').responses.create({ model: 'gpt-4.1', input: 'First.' });
      await sdk(gw, 'openai').responses.create({ model: 'gpt-4.1', input: 'Second.', previous_response_id: answer.id });
      expect(fake.received('POST /oai/responses').at(-1)!.json()).toEqual({ model: 'gpt-4.1', input: 'Second.', previous_response_id: answer.id });
      fake.on('GET /oai/responses/resp_background_1', { json: { ...answer, id: 'resp_background_1', status: 'in_progress', background: true } });
      expect((await sdk(gw, 'openai').responses.retrieve('resp_background_1')).status).toBe('in_progress');
    });
  });

  it('azure-openai: forwarded to /openai/responses with a Responses api-version', async () => {
    fake.on('POST /azure/openai/responses', { json: fixtureJson('openai', 'responses') });
    const created = await sdk(gw, 'azure-openai', { 'x-gateway-azure-resource-name': 'acme' }).responses.create({ model: 'my-gpt-41-deployment', input: 'Hi' });
    expect(created.output_text).toContain('unicorn');
    const sent = fake.received('POST /azure/openai/responses').at(-1)!;
    expect(sent.url).toBe('/azure/openai/responses?api-version=2025-04-01-preview');
    expect(sent.headers['api-key']).toBe('sk-responses-key-1');
  });

  describe('anthropic: translated through chat', () => {
    const request = {
      model: 'claude-sonnet-4-5',
      instructions: 'Use the tools.',
      input: [{ role: 'user' as const, content: 'What is the weather in Paris?' }],
      tools: [WEATHER],
      reasoning: { effort: 'medium' as const },
      max_output_tokens: 12000,
    };

    it('answers a response with reasoning, message and function_call items; the request goes as a Messages request', async () => {
      fake.on('POST /v1/messages', { json: fixtureJson('anthropic', 'thinking') });
      const response = await sdk(gw, 'anthropic').responses.create(request);
      const sent = fake.received('POST /v1/messages').at(-1)!.json();
      expect(sent).toEqual({
        model: 'claude-sonnet-4-5',
        system: 'Use the tools.',
        messages: [{ role: 'user', content: 'What is the weather in Paris?' }],
        max_tokens: 12000,
        thinking: { type: 'enabled', budget_tokens: 8192 },
        tools: [{ name: 'get_weather', description: 'Weather of a city', input_schema: WEATHER.parameters }],
      });
      const content = fixtureJson('anthropic', 'thinking').content;
      // the gateway's own id, never the upstream's (msg_01ThinkToolsA1b2C3d4E5f6G7)
      expect(response.id).toMatch(/^resp_[0-9a-f]{48}$/);
      expect(response.status).toBe('completed');
      expect(response.output).toEqual([
        {
          id: expect.stringMatching(/^rs_/),
          type: 'reasoning',
          summary: [],
          content: [{ type: 'reasoning_text', text: content[0].thinking }],
          encrypted_content: content[0].signature,
        },
        { id: expect.stringMatching(/^rs_/), type: 'reasoning', summary: [], encrypted_content: content[1].data },
        {
          id: expect.stringMatching(/^msg_/),
          type: 'message',
          status: 'completed',
          role: 'assistant',
          content: [{ type: 'output_text', text: "I'll check the weather.", annotations: [], logprobs: [] }],
        },
        {
          id: expect.stringMatching(/^fc_/),
          type: 'function_call',
          status: 'completed',
          call_id: 'toolu_01A09q90qw90lq917835lq9',
          name: 'get_weather',
          arguments: '{"city":"Paris"}',
        },
      ]);
      expect(response.output_text).toBe("I'll check the weather.");
      expect(response.usage).toEqual({
        input_tokens: 1536,
        input_tokens_details: { cached_tokens: 1024 },
        output_tokens: 180,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: 1716,
      });
      expect(response).toMatchObject({ instructions: 'Use the tools.', max_output_tokens: 12000, reasoning: { effort: 'medium' }, store: true, tools: [WEATHER] });
    });

    it('streams Responses events that responses.stream assembles into the same response', async () => {
      fake.on('POST /v1/messages', { json: fixtureJson('anthropic', 'thinking') });
      const whole = await sdk(gw, 'anthropic').responses.create(request);
      fake.on('POST /v1/messages', sse('anthropic', 'thinking'));
      const stream = sdk(gw, 'anthropic').responses.stream(request);
      const types: string[] = [];
      let reasoning = '';
      stream.on('event', (e) => {
        types.push(e.type);
        if (e.type === 'response.reasoning_text.delta') reasoning += e.delta;
      });
      const final = await stream.finalResponse();
      // each answer has an id of its own; its items' ids follow from it
      expect(final.id).toMatch(/^resp_[0-9a-f]{48}$/);
      expect(final.id).not.toBe(whole.id);
      const args = (r: any) =>
        unparsed(r.output).map((o: any) => ({
          ...o,
          id: o.id.replace(r.id.slice('resp_'.length), '*'),
          ...(o.type === 'function_call' ? { arguments: JSON.parse(o.arguments) } : {}),
        }));
      expect(args(final)).toEqual(args(whole));
      expect(stable({ ...final, id: '', output: [] })).toEqual(stable({ ...whole, id: '', output: [] }));
      expect(reasoning).toBe(fixtureJson('anthropic', 'thinking').content[0].thinking);
      expect(types.slice(0, 2)).toEqual(['response.created', 'response.in_progress']);
      expect(types.at(-1)).toBe('response.completed');
      expect(types).toContain('response.function_call_arguments.delta');
    });

    it('continues a conversation by previous_response_id: the kept turns go upstream, thinking and tool ids intact, over three turns', async () => {
      const client = sdk(gw, 'anthropic');
      fake.on('POST /v1/messages', { json: fixtureJson('anthropic', 'thinking') });
      const first = await client.responses.create(request);
      fake.on('POST /v1/messages', { json: fixtureJson('anthropic', 'thinking-final') });
      const second = await client.responses.create({
        model: 'claude-sonnet-4-5',
        previous_response_id: first.id,
        input: [{ type: 'function_call_output', call_id: 'toolu_01A09q90qw90lq917835lq9', output: '{"temperature_c":18}' }],
        tools: [WEATHER],
        reasoning: { effort: 'medium' },
        max_output_tokens: 12000,
      });
      expect(second.previous_response_id).toBe(first.id);
      expect(second.output_text).toBe('It is 18°C and sunny in Paris.');
      const thinking = fixtureJson('anthropic', 'thinking').content;
      const replayed = [
        { role: 'user', content: 'What is the weather in Paris?' },
        { role: 'assistant', content: [thinking[0], thinking[1], thinking[2], thinking[3]] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01A09q90qw90lq917835lq9', content: '{"temperature_c":18}' }] },
      ];
      expect(fake.received('POST /v1/messages').at(-1)!.json().messages).toEqual(replayed);
      // the instructions of an earlier turn do not carry over
      expect(fake.received('POST /v1/messages').at(-1)!.json().system).toBeUndefined();

      fake.on('POST /v1/messages', { json: fixtureJson('anthropic', 'thinking-final') });
      const third = await client.responses.create({ model: 'claude-sonnet-4-5', previous_response_id: second.id, input: 'And tomorrow?' });
      expect(third.previous_response_id).toBe(second.id);
      expect(fake.received('POST /v1/messages').at(-1)!.json().messages).toEqual([
        ...replayed,
        { role: 'assistant', content: [{ type: 'text', text: 'It is 18°C and sunny in Paris.' }] },
        { role: 'user', content: 'And tomorrow?' },
      ]);
    });

    it('retrieves, lists input items, refuses to cancel and deletes kept responses; other keys and unknown ids get 404', async () => {
      const client = sdk(gw, 'anthropic');
      fake.on('POST /v1/messages', { json: fixtureJson('anthropic', 'thinking-final') });
      const created = await client.responses.create({
        model: 'claude-sonnet-4-5',
        input: [
          { role: 'user', content: 'One' },
          { role: 'assistant', content: 'Two' },
          { role: 'user', content: 'Three' },
        ],
      });
      const before = fake.requests.length;
      expect(await client.responses.retrieve(created.id)).toMatchObject({ id: created.id, output: created.output, status: 'completed' });
      const page = await client.responses.inputItems.list(created.id, { limit: 2 });
      expect(page.data.map((i: any) => i.content[0].text)).toEqual(['Three', 'Two']);
      expect(page.has_more).toBe(true);
      const asc = await client.responses.inputItems.list(created.id, { order: 'asc' });
      expect(asc.data.map((i: any) => [i.role, i.content[0].type])).toEqual([
        ['user', 'input_text'],
        ['assistant', 'output_text'],
        ['user', 'input_text'],
      ]);
      const cancel: any = await client.responses.cancel(created.id).catch((e) => e);
      expect(cancel.status).toBe(422);
      const stranger: any = await sdk(gw, 'anthropic', {}, 'sk-someone-else')
        .responses.retrieve(created.id)
        .catch((e) => e);
      expect(stranger).toBeInstanceOf(OpenAI.NotFoundError);
      expect(await client.responses.delete(created.id)).toEqual({ id: created.id, object: 'response.deleted', deleted: true });
      const gone: any = await client.responses.retrieve(created.id).catch((e) => e);
      expect(gone).toBeInstanceOf(OpenAI.NotFoundError);
      expect(gone.error).toMatchObject({ type: 'invalid_request_error', code: 'not_found', param: 'response_id' });
      expect(fake.requests.length).toBe(before);
      const missing: any = await client.responses.create({ model: 'claude-sonnet-4-5', input: 'x', previous_response_id: 'resp_nope' }).catch((e) => e);
      expect(missing).toBeInstanceOf(OpenAI.NotFoundError);
      expect(missing.error.param).toBe('previous_response_id');
    });

    it('store: false keeps nothing', async () => {
      fake.on('POST /v1/messages', { json: { ...fixtureJson('anthropic', 'thinking-final'), id: 'msg_01NotKept' } });
      const response = await sdk(gw, 'anthropic').responses.create({ model: 'claude-sonnet-4-5', input: 'Hi', store: false });
      expect((response as any).store).toBe(false);
      const err: any = await sdk(gw, 'anthropic')
        .responses.retrieve(response.id)
        .catch((e) => e);
      expect(err).toBeInstanceOf(OpenAI.NotFoundError);
    });

    it('refuses tools only a Responses provider has, with a clear 400', async () => {
      const before = fake.requests.length;
      const err: any = await sdk(gw, 'anthropic')
        .responses.create({ model: 'claude-sonnet-4-5', input: 'x', tools: [{ type: 'web_search' } as any] })
        .catch((e) => e);
      expect(err).toBeInstanceOf(OpenAI.BadRequestError);
      expect(err.error.message).toMatch(/web_search/);
      expect(fake.requests.length).toBe(before);
    });
  });

  describe('google and bedrock: translated through chat', () => {
    it('google: tools and thought signatures, whole and streamed; the signature rides on the function call and goes back with it', async () => {
      const path = (s: boolean) => `POST /v1beta/models/gemini-2.5-flash:${s ? 'streamGenerateContent' : 'generateContent'}`;
      const client = sdk(gw, 'google');
      fake.on(path(false), { json: fixtureJson('google', 'thinking-tools') });
      const request = { model: 'gemini-2.5-flash', input: 'Weather in Paris?', tools: [WEATHER], reasoning: { effort: 'low' as const } };
      const whole = await client.responses.create(request);
      const signature = fixtureJson('google', 'thinking-tools').candidates[0].content.parts[1].thoughtSignature;
      expect(whole.output.map((o: any) => o.type)).toEqual(['reasoning', 'function_call']);
      expect(whole.output[1]).toMatchObject({ call_id: 'call_0', name: 'get_weather', arguments: '{"city":"Paris"}', extra_content: { google: { thought_signature: signature } } });
      expect(whole.usage).toMatchObject({ input_tokens: 40, input_tokens_details: { cached_tokens: 16 }, output_tokens_details: { reasoning_tokens: 30 } });
      fake.on(path(true), sse('google', 'thinking-tools'));
      const final = await client.responses.stream(request).finalResponse();
      expect(unparsed(final.output)).toEqual(whole.output.map((o: any) => ({ ...o, id: expect.any(String) })));
      fake.on(path(false), { json: fixtureJson('google', 'thinking-final') });
      await client.responses.create({
        model: 'gemini-2.5-flash',
        previous_response_id: whole.id,
        input: [{ type: 'function_call_output', call_id: 'call_0', output: '{"temperature_c":18}' }],
        tools: [WEATHER],
      });
      const sent = fake.received(path(false)).at(-1)!.json();
      expect(sent.contents[1].parts.at(-1)).toEqual({ functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: signature });
      expect(sent.contents[2]).toEqual({ role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { temperature_c: 18 } } }] });
    });

    it('bedrock: reasoning and tools, whole and streamed; a conversation started on google continues on bedrock', async () => {
      const path = (s: boolean) => `POST /model/${encodeURIComponent(BEDROCK_CLAUDE)}/${s ? 'converse-stream' : 'converse'}`;
      const client = sdk(gw, 'bedrock', AWS);
      fake.on(path(false), { json: fixtureJson('bedrock', 'thinking') });
      const request = { model: BEDROCK_CLAUDE, input: 'Weather in Paris?', tools: [WEATHER] };
      const whole = await client.responses.create(request);
      expect(whole.output.map((o: any) => o.type)).toEqual(['reasoning', 'reasoning', 'message', 'function_call']);
      fake.on(path(true), eventStreamReply('bedrock', 'thinking.events'));
      const final = await client.responses.stream(request).finalResponse();
      const args = (r: any) => unparsed(r.output).map((o: any) => ({ ...o, id: undefined, ...(o.type === 'function_call' ? { arguments: JSON.parse(o.arguments) } : {}) }));
      expect(args(final)).toEqual(args(whole));
      expect(final.usage).toEqual(whole.usage);

      fake.on('POST /v1beta/models/gemini-2.5-flash:generateContent', { json: fixtureJson('google', 'thinking-final') });
      const onGoogle = await sdk(gw, 'google').responses.create({ model: 'gemini-2.5-flash', input: 'Say the weather.' });
      fake.on(path(false), { json: fixtureJson('bedrock', 'thinking-final') });
      await client.responses.create({ model: BEDROCK_CLAUDE, previous_response_id: onGoogle.id, input: 'Again?' });
      expect(
        fake
          .received(path(false))
          .at(-1)!
          .json()
          .messages.map((m: any) => [
            m.role,
            m.content
              .filter((b: any) => b.text)
              .map((b: any) => b.text)
              .join(''),
          ]),
      ).toEqual([
        ['user', 'Say the weather.'],
        ['assistant', 'It is 18°C and sunny in Paris.'],
        ['user', 'Again?'],
      ]);
    });
  });
});

describe('responses (PostgreSQL store, a schema of its own)', () => {
  const schema = `responses_test_${process.pid}_${Date.now()}`;
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startGateway({ providers: providers(fake.url), storage: { type: 'postgres', url: PG_URL, schema } });
  });
  afterAll(async () => {
    await gw?.close();
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await client.end();
  });

  it('keeps responses and follows previous_response_id chains', async () => {
    const client = sdk(gw, 'anthropic');
    fake.on('POST /v1/messages', { json: { ...fixtureJson('anthropic', 'thinking-final'), id: 'msg_01PgFirst' } });
    const first = await client.responses.create({ model: 'claude-sonnet-4-5', input: 'First question' });
    fake.on('POST /v1/messages', { json: { ...fixtureJson('anthropic', 'thinking-final'), id: 'msg_01PgSecond' } });
    const second = await client.responses.create({ model: 'claude-sonnet-4-5', input: 'Second question', previous_response_id: first.id });
    fake.on('POST /v1/messages', { json: { ...fixtureJson('anthropic', 'thinking-final'), id: 'msg_01PgThird' } });
    const third = await client.responses.create({ model: 'claude-sonnet-4-5', input: 'Third question', previous_response_id: second.id });
    expect(
      fake
        .received('POST /v1/messages')
        .at(-1)!
        .json()
        .messages.map((m: any) => m.role),
    ).toEqual(['user', 'assistant', 'user', 'assistant', 'user']);
    expect((await client.responses.retrieve(second.id)).previous_response_id).toBe(first.id);
    const rows = await (async () => {
      const c = new pg.Client({ connectionString: PG_URL });
      await c.connect();
      const r = await c.query(`SELECT id FROM "${schema}".gateway_responses ORDER BY created_ms`);
      await c.end();
      return r.rows.map((x) => x.id);
    })();
    expect(rows).toEqual([first.id, second.id, third.id]);
  });
});
