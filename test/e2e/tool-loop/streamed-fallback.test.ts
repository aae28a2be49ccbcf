/**
 * A STREAMED tool loop under a fallback routing config. The caller's stream starts only once the
 * loop's first model call answered 2xx, so a first model call that fails (503) before anything
 * was written to the caller moves to the next target, as a plain stream does: the answer comes
 * from the second target, the tool runs once. Once the caller's stream has started (the first
 * round's events went out), a later model call that fails is never moved to another target: the
 * stream ends with the route's error event after the rounds before it (the tool ran once). With
 * `on_status_codes` that leave 503 out, the caller gets the error as the answer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { FakeUpstream, type ReceivedRequest } from '../../helpers/fake-upstream.js';
import { HttpToolServer } from '../../helpers/http-tool-server.js';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';
import { chatModel, MCP_TOOL, plan, responsesModel } from './fake-models.js';

type Json = Record<string, any>;

const OPENAI_TARGET_KEY = 'sk-openai-target-key-0002';

/** A 503 of an overloaded model. */
function unavailable(_req: ReceivedRequest, res: import('node:http').ServerResponse): void {
  res.writeHead(503, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'Overloaded.', type: 'server_error', code: null } }));
}

/** The SSE events of a stream body, each as `{ event, data }` (data parsed; `[DONE]` left out). */
function sseEvents(text: string): Array<{ event?: string; data: Json }> {
  const out: Array<{ event?: string; data: Json }> = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    let event: string | undefined;
    const data: string[] = [];
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith('event:')) event = line.slice(6).trim();
      else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
    }
    if (data.length === 0 || data.join('\n') === '[DONE]') continue;
    out.push({ event, data: JSON.parse(data.join('\n')) });
  }
  return out;
}

describe('a streamed tool loop under a fallback routing config', () => {
  let first: FakeUpstream;
  let second: FakeUpstream;
  let remote: HttpToolServer;
  let gw: TestGateway;

  beforeAll(async () => {
    remote = await new HttpToolServer().start();
    [first, second] = await Promise.all([new FakeUpstream().start(), new FakeUpstream().start()]);
    gw = await startGateway({
      logging: { level: 'warn' },
      providers: { deepseek: { baseUrl: first.url }, openai: { baseUrl: `${second.url}/oai` } },
      mcpServers: { remote: { url: remote.url } },
    });
  });
  afterAll(async () => {
    await gw?.close();
    await Promise.all([remote?.stop(), first?.stop(), second?.stop()]);
  });

  const config = (strategy: Json = { mode: 'fallback' }) => JSON.stringify({ strategy, targets: [{ provider: 'deepseek' }, { provider: 'openai', api_key: OPENAI_TARGET_KEY }] });
  const headers = (strategy?: Json) => ({ 'content-type': 'application/json', 'x-gateway-api-key': 'sk-provider-key-1', 'x-gateway-config': config(strategy) });
  const openai = (strategy?: Json) => new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: 'sk-provider-key-1', defaultHeaders: { 'x-gateway-config': config(strategy) }, maxRetries: 0 });

  /** Each test starts from fresh fakes: `firstReplies` for the first target's chat calls; the second target answers as a model that calls the tool. */
  const arrange = (...firstReplies: Array<(req: ReceivedRequest, res: import('node:http').ServerResponse) => void>) => {
    plan.tool = 'add';
    plan.args = { a: 2, b: 3 };
    first.requests.length = 0;
    second.requests.length = 0;
    first.on('POST /chat/completions', ...firstReplies);
    second.on('POST /oai/responses', responsesModel).on('POST /oai/chat/completions', chatModel);
    const callsBefore = remote.calls.length;
    return { toolCalls: () => remote.calls.slice(callsBefore).map((c) => c.tool) };
  };

  describe('the first model call fails (503) before anything reached the caller: the next target answers', () => {
    it('/v1/responses with the openai SDK (responses.stream): the answer and every event come from the second target; one tools/call', async () => {
      const { toolCalls } = arrange(unavailable);
      const stream = openai().responses.stream({ model: 'm', input: 'What is 2 + 3?', tools: [MCP_TOOL] });
      const events: Json[] = [];
      stream.on('event', (event) => events.push(event));
      const final = await stream.finalResponse();
      expect(final.output_text).toBe('The tool said: 5');
      expect(final.output.map((i) => i.type)).toEqual(['mcp_list_tools', 'mcp_call', 'message']);
      const types = events.map((e) => e.type);
      // one stream, told once: listed once, called once, completed once
      expect(types.filter((t) => t === 'response.created')).toHaveLength(1);
      expect(types.filter((t) => t === 'response.mcp_list_tools.completed')).toHaveLength(1);
      expect(types.filter((t) => t === 'response.mcp_call.completed')).toHaveLength(1);
      expect(types.at(-1)).toBe('response.completed');
      expect(types).not.toContain('error');
      expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
      expect(toolCalls()).toEqual(['add']);
      // the first target was asked once (503, no retry configured); the second made both model calls, streamed
      expect(first.received('POST /chat/completions')).toHaveLength(1);
      const sent = second.received('POST /oai/responses').map((r) => r.json());
      expect(sent.map((b) => b.stream)).toEqual([true, true]);
      expect(second.received('POST /oai/responses')[0]!.headers.authorization).toBe(`Bearer ${OPENAI_TARGET_KEY}`);
    });

    it('/v1/responses, the response headers name the target that answered', async () => {
      const { toolCalls } = arrange(unavailable);
      const res = await fetch(`${gw.url}/v1/responses`, {
        method: 'POST',
        headers: headers(),
        body: JSON.stringify({ model: 'm', input: 'What is 2 + 3?', tools: [MCP_TOOL], stream: true }),
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain('text/event-stream');
      expect(res.headers.get('x-gateway-target-index')).toBe('1');
      expect(res.headers.get('x-gateway-provider')).toBe('openai');
      const events = sseEvents(await res.text());
      expect(events.at(-1)?.data.type).toBe('response.completed');
      expect(events.at(-1)?.data.response.output.find((i: Json) => i.type === 'message').content[0].text).toBe('The tool said: 5');
      expect(toolCalls()).toEqual(['add']);
    });

    it('chat: the chunks carry the second target’s answer and the one executed call', async () => {
      const { toolCalls } = arrange(unavailable);
      const res = await fetch(`${gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: headers(),
        body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'What is 2 + 3?' }], tools: [{ type: 'mcp', server_label: 'remote' }], stream: true }),
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-gateway-target-index')).toBe('1');
      const chunks = sseEvents(await res.text()).map((e) => e.data);
      expect(chunks.some((c) => c.error)).toBe(false);
      const text = chunks.map((c) => c.choices?.[0]?.delta?.content ?? '').join('');
      expect(text).toBe('The tool said: 5');
      const ended = chunks.flatMap((c) => c.choices?.[0]?.delta?.mcp_calls ?? []).filter((call: Json) => call.status !== 'in_progress');
      expect(ended).toHaveLength(1);
      expect(ended[0]).toMatchObject({ name: 'add', status: 'completed', output: '5' });
      expect(chunks.at(-1)?.choices?.[0]?.finish_reason ?? chunks.findLast((c) => c.choices?.[0]?.finish_reason)?.choices[0].finish_reason).toBe('stop');
      expect(toolCalls()).toEqual(['add']);
      expect(first.received('POST /chat/completions')).toHaveLength(1);
      expect(second.received('POST /oai/chat/completions')).toHaveLength(2);
    });

    it('/v1/messages: the events carry the second target’s answer and the one tool round', async () => {
      const { toolCalls } = arrange(unavailable);
      const res = await fetch(`${gw.url}/v1/messages`, {
        method: 'POST',
        headers: headers(),
        body: JSON.stringify({
          model: 'm',
          max_tokens: 64,
          messages: [{ role: 'user', content: 'What is 2 + 3?' }],
          mcp_servers: [{ type: 'url', url: '/mcp/remote', name: 'remote' }],
          stream: true,
        }),
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-gateway-target-index')).toBe('1');
      const events = sseEvents(await res.text());
      const types = events.map((e) => e.data.type);
      expect(types[0]).toBe('message_start');
      expect(types.filter((t) => t === 'message_start')).toHaveLength(1);
      expect(types).not.toContain('error');
      expect(types.at(-1)).toBe('message_stop');
      const blocks = events.filter((e) => e.data.type === 'content_block_start').map((e) => e.data.content_block.type);
      expect(blocks).toEqual(['mcp_tool_use', 'mcp_tool_result', 'text']);
      const text = events
        .filter((e) => e.data.delta?.type === 'text_delta')
        .map((e) => e.data.delta.text)
        .join('');
      expect(text).toBe('The tool said: 5');
      expect(toolCalls()).toEqual(['add']);
      expect(first.received('POST /chat/completions')).toHaveLength(1);
      expect(second.received('POST /oai/chat/completions')).toHaveLength(2);
    });

    it('/v1/responses, an approved call: it runs before the first model call; that call fails over, and the call is not run again', async () => {
      const { toolCalls } = arrange(chatModel, unavailable);
      const client = openai();
      const tools = [{ type: 'mcp' as const, server_label: 'remote' }];
      // require_approval is "always" by default: the first answer asks for approval
      const asked = await client.responses.create({ model: 'm', input: 'What is 2 + 3?', tools });
      const request = asked.output.find((i) => i.type === 'mcp_approval_request') as Json;
      expect(request).toMatchObject({ name: 'add', arguments: '{"a":2,"b":3}' });
      expect(toolCalls()).toEqual([]);
      const stream = client.responses.stream({
        model: 'm',
        previous_response_id: asked.id,
        input: [{ type: 'mcp_approval_response', approval_request_id: request.id, approve: true }],
        tools,
      });
      const events: Json[] = [];
      stream.on('event', (event) => events.push(event));
      const final = await stream.finalResponse();
      expect(final.output.map((i) => i.type)).toEqual(['mcp_call', 'message']);
      expect(final.output_text).toBe('The tool said: 5');
      expect(events.filter((e) => e.type === 'response.mcp_call.completed')).toHaveLength(1);
      expect(toolCalls()).toEqual(['add']);
      // the model call after the approved call: 503 on the first target, then the second target with the call's result
      expect(first.received('POST /chat/completions')).toHaveLength(2);
      const resumed = second.received('POST /oai/responses').map((r) => r.json());
      expect(resumed).toHaveLength(1);
      expect(resumed[0].input.find((i: Json) => i.type === 'function_call_output')).toMatchObject({ output: '5' });
    });

    it('a retry on the first target comes first: 503 then an answer, and the second target gets nothing', async () => {
      const { toolCalls } = arrange(unavailable, chatModel);
      const res = await fetch(`${gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-gateway-api-key': 'sk-provider-key-1',
          'x-gateway-config': JSON.stringify({
            strategy: { mode: 'fallback' },
            targets: [
              { provider: 'deepseek', retry: { attempts: 1, on_status_codes: [503] } },
              { provider: 'openai', api_key: OPENAI_TARGET_KEY },
            ],
          }),
        },
        body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'What is 2 + 3?' }], tools: [{ type: 'mcp', server_label: 'remote' }], stream: true }),
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-gateway-target-index')).toBe('0');
      const chunks = sseEvents(await res.text()).map((e) => e.data);
      expect(chunks.map((c) => c.choices?.[0]?.delta?.content ?? '').join('')).toBe('The tool said: 5');
      expect(toolCalls()).toEqual(['add']);
      expect(first.received('POST /chat/completions')).toHaveLength(3);
      expect(second.requests).toHaveLength(0);
    });
  });

  describe('the first target answers a tool call, then 503 on the second model call: the stream has started, so it ends with the error event', () => {
    it('/v1/responses with the openai SDK: the tool round is shown, then the error event; the tool ran once, the second target got nothing', async () => {
      const { toolCalls } = arrange(chatModel, unavailable);
      const stream = openai().responses.stream({ model: 'm', input: 'What is 2 + 3?', tools: [MCP_TOOL] });
      const events: Json[] = [];
      stream.on('event', (event) => events.push(event));
      // the SDK rejects with the stream's error event
      const failure = await stream.finalResponse().then(
        () => undefined,
        (err: unknown) => err as Json,
      );
      expect(failure).toMatchObject({ type: 'error', code: 'provider_error', message: expect.stringContaining('Overloaded') });
      const types = events.map((e) => e.type);
      expect(types).toContain('response.mcp_call.completed');
      expect(types).not.toContain('response.output_text.delta');
      expect(types).not.toContain('response.completed');
      expect(toolCalls()).toEqual(['add']);
      expect(first.received('POST /chat/completions')).toHaveLength(2);
      expect(second.requests).toHaveLength(0);
    });

    it('chat: the call chunks, then the contract’s error event', async () => {
      const { toolCalls } = arrange(chatModel, unavailable);
      const res = await fetch(`${gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: headers(),
        body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'What is 2 + 3?' }], tools: [{ type: 'mcp', server_label: 'remote' }], stream: true }),
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-gateway-target-index')).toBe('0');
      const chunks = sseEvents(await res.text()).map((e) => e.data);
      const calls = chunks.flatMap((c) => c.choices?.[0]?.delta?.mcp_calls ?? []);
      expect(calls.map((c: Json) => c.status)).toEqual(['in_progress', 'completed']);
      expect(chunks.at(-1)?.error).toMatchObject({ message: expect.stringContaining('Overloaded') });
      expect(chunks.map((c) => c.choices?.[0]?.delta?.content ?? '').join('')).toBe('');
      expect(toolCalls()).toEqual(['add']);
      expect(second.requests).toHaveLength(0);
    });

    it('/v1/messages: the tool blocks, then an error event', async () => {
      const { toolCalls } = arrange(chatModel, unavailable);
      const res = await fetch(`${gw.url}/v1/messages`, {
        method: 'POST',
        headers: headers(),
        body: JSON.stringify({
          model: 'm',
          max_tokens: 64,
          messages: [{ role: 'user', content: 'What is 2 + 3?' }],
          mcp_servers: [{ type: 'url', url: '/mcp/remote', name: 'remote' }],
          stream: true,
        }),
      });
      expect(res.status).toBe(200);
      const events = sseEvents(await res.text());
      const types = events.map((e) => e.data.type);
      const blocks = events.filter((e) => e.data.type === 'content_block_start').map((e) => e.data.content_block.type);
      expect(blocks).toEqual(['mcp_tool_use', 'mcp_tool_result']);
      expect(types.at(-1)).toBe('error');
      expect(events.at(-1)?.data.error.message).toContain('Overloaded');
      expect(types).not.toContain('message_stop');
      expect(toolCalls()).toEqual(['add']);
      expect(second.requests).toHaveLength(0);
    });
  });

  describe('on_status_codes without 503: the first model call’s 503 is the answer', () => {
    for (const [route, path, body] of [
      ['/v1/responses', '/v1/responses', { model: 'm', input: 'What is 2 + 3?', tools: [MCP_TOOL], stream: true }],
      ['chat', '/v1/chat/completions', { model: 'm', messages: [{ role: 'user', content: 'What is 2 + 3?' }], tools: [{ type: 'mcp', server_label: 'remote' }], stream: true }],
      [
        '/v1/messages',
        '/v1/messages',
        { model: 'm', max_tokens: 64, messages: [{ role: 'user', content: 'What is 2 + 3?' }], mcp_servers: [{ type: 'url', url: '/mcp/remote', name: 'remote' }], stream: true },
      ],
    ] as const)
      it(`${route}: the contract's 502 before any byte of a stream; no tool ran, the next target got nothing`, async () => {
        const { toolCalls } = arrange(unavailable);
        const res = await fetch(`${gw.url}${path}`, { method: 'POST', headers: headers({ mode: 'fallback', on_status_codes: [429] }), body: JSON.stringify(body) });
        expect(res.status).toBe(502);
        expect(res.headers.get('content-type')).toContain('application/json');
        const answer = (await res.json()) as Json;
        expect(answer.error).toMatchObject({ code: 'provider_error', provider: 'deepseek', message: expect.stringContaining('Overloaded') });
        expect(toolCalls()).toEqual([]);
        expect(first.received('POST /chat/completions')).toHaveLength(1);
        expect(second.requests).toHaveLength(0);
      });

    it('/v1/responses with the openai SDK: responses.stream rejects with the 502', async () => {
      const { toolCalls } = arrange(unavailable);
      const stream = openai({ mode: 'fallback', on_status_codes: [429] }).responses.stream({ model: 'm', input: 'What is 2 + 3?', tools: [MCP_TOOL] });
      const failure = await stream.finalResponse().then(
        () => undefined,
        (err: unknown) => err as InstanceType<typeof OpenAI.APIError>,
      );
      expect(failure).toBeInstanceOf(OpenAI.APIError);
      expect(failure?.status).toBe(502);
      expect(toolCalls()).toEqual([]);
      expect(second.requests).toHaveLength(0);
    });
  });
});
