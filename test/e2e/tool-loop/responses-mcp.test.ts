/**
 * Tools for any model on /v1/responses: an `mcp` tool naming a tool server of the gateway is run
 * by the gateway (list, call for the caller, results back to the model) for a translated
 * provider (deepseek, anthropic) and for openai's own Responses API, through the `openai` SDK
 * (responses.create and responses.stream); approvals, a caller without mcp:write, a tool that
 * hangs past the loop's time limit, a caller that goes away mid-call, and the 400s.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import type { FakeUpstream } from '../../helpers/fake-upstream.js';
import { MCP_TOOL, plan, responsesModel } from './fake-models.js';
import type { HttpToolServer } from '../../helpers/http-tool-server.js';
import { eventually } from '../../helpers/mcp.js';
import type { TestGateway } from '../../helpers/start-gateway.js';
import { startLoopGateway, type LoopGateway } from './loop-gateway.js';

type Json = Record<string, any>;

describe('/v1/responses with an mcp tool of a gateway tool server', () => {
  let remote: HttpToolServer;
  let fake: FakeUpstream;
  let gw: TestGateway;
  let dir: string;
  const sdk = (provider: string) => new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: 'sk-provider-key-1', defaultHeaders: { 'x-gateway-provider': provider }, maxRetries: 0 });

  let loop: LoopGateway;
  /** No request is in flight at the gateway (its gateway_requests_in_flight gauge): every request, its loop included, has ended. */
  const requestsEnded = () => eventually(() => gw.gateway.services.metrics.inFlight.value === 0, 5000, 'no request in flight');

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tool-loop-pipelines-'));
    writeFileSync(join(dir, 'responses.yaml'), 'name: responses\nextends: responses\nconfigure:\n  tool-loop: { timeoutMs: 1500 }\n');
    loop = await startLoopGateway(() => ({ pipelines: { dir } }));
    ({ remote, fake, gw } = loop);
  });
  afterAll(async () => {
    await loop?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  for (const provider of ['deepseek', 'anthropic', 'google', 'openai']) {
    it(`${provider}: the gateway lists the tools, runs the model's call on the tool server and the model answers with the result`, async () => {
      plan.tool = 'add';
      plan.args = { a: 2, b: 3 };
      const before = remote.calls.length;
      const response = await sdk(provider).responses.create({
        model: provider === 'anthropic' ? 'claude-sonnet-4-5' : provider === 'google' ? 'gemini-2.5-flash' : 'some-model',
        input: 'What is 2 + 3?',
        tools: [MCP_TOOL],
      });
      expect(response.output.map((i) => i.type)).toEqual(['mcp_list_tools', 'mcp_call', 'message']);
      const listed = response.output[0] as Json;
      expect(listed).toMatchObject({ type: 'mcp_list_tools', server_label: 'remote' });
      expect(listed.tools.map((t: Json) => t.name)).toEqual(expect.arrayContaining(['echo', 'add', 'whoami']));
      expect(response.output[1]).toMatchObject({
        type: 'mcp_call',
        server_label: 'remote',
        name: 'add',
        arguments: '{"a":2,"b":3}',
        output: '5',
        error: null,
        status: 'completed',
      });
      expect(response.output_text).toBe('The tool said: 5');
      expect(response.status).toBe('completed');
      // both model calls are in the usage the meter bills
      expect(response.usage).toMatchObject({ input_tokens: 20, output_tokens: 10, total_tokens: 30 });
      expect(response.tools).toEqual([expect.objectContaining({ type: 'mcp', server_label: 'remote' })]);
      expect(remote.calls.slice(before).map((c) => c.tool)).toEqual(['add']);
      // the model saw function tools, never the mcp tool
      const sent = fake.requests.at(-1)!.json();
      expect(JSON.stringify(sent.tools)).not.toContain('"mcp"');
    });
  }

  it('anthropic with thinking: the signed thinking block goes back with the tool round and is in the answer', async () => {
    plan.tool = 'add';
    plan.args = { a: 2, b: 2 };
    plan.thinking = true;
    try {
      const response = await sdk('anthropic').responses.create({ model: 'claude-sonnet-4-5', input: 'What is 2 + 2?', tools: [MCP_TOOL], reasoning: { effort: 'low' } });
      expect(response.output.map((i) => i.type)).toEqual(['mcp_list_tools', 'reasoning', 'mcp_call', 'message']);
      expect(response.output[1]).toMatchObject({ type: 'reasoning', encrypted_content: 'sig-thinking-1' });
      const second = fake.received('POST /v1/messages').at(-1)!.json();
      expect(second.messages.at(-2)).toEqual({
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'The sum needs the add tool.', signature: 'sig-thinking-1' },
          { type: 'tool_use', id: 'toolu_1', name: 'remote__add', input: { a: 2, b: 2 } },
        ],
      });
    } finally {
      plan.thinking = false;
    }
  });

  it('parallel calls of one turn all run; the model gets them as one assistant turn and their results', async () => {
    plan.tool = 'echo';
    plan.parallel = [{ text: 'one' }, { text: 'two' }, { text: 'three' }];
    try {
      const before = remote.calls.length;
      const response = await sdk('deepseek').responses.create({ model: 'm', input: 'Echo three', tools: [MCP_TOOL] });
      const calls = response.output.filter((i) => i.type === 'mcp_call') as Json[];
      expect(calls.map((c) => c.output).sort()).toEqual(['echo: one', 'echo: three', 'echo: two']);
      expect(remote.calls.length - before).toBe(3);
      const second = fake.received('POST /chat/completions').at(-1)!.json();
      expect(second.messages.map((m: Json) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'tool']);
      expect(second.messages[1].tool_calls.map((c: Json) => c.id)).toEqual(['call_1', 'call_2', 'call_3']);
      expect(second.messages.slice(2).map((m: Json) => m.content)).toEqual(['echo: one', 'echo: two', 'echo: three']);
    } finally {
      plan.parallel = undefined;
    }
  });

  it('tool_choice naming an mcp tool of a gateway server: the first model call must call it, the next one chooses freely', async () => {
    plan.tool = 'echo';
    plan.args = { text: 'chosen' };
    const before = fake.received('POST /chat/completions').length;
    const response = await sdk('deepseek').responses.create({ model: 'm', input: 'Echo', tools: [MCP_TOOL], tool_choice: { type: 'mcp', server_label: 'remote', name: 'echo' } });
    expect(response.output_text).toBe('The tool said: echo: chosen');
    const [first, second] = fake
      .received('POST /chat/completions')
      .slice(before)
      .map((r) => r.json());
    expect(first.tool_choice).toEqual({ type: 'function', function: { name: 'remote__echo' } });
    expect(second.tool_choice).toBe('auto');
  });

  it('allowed_tools narrows what the model is offered', async () => {
    const response = await sdk('deepseek').responses.create({ model: 'm', input: 'Echo hi', tools: [{ ...MCP_TOOL, allowed_tools: ['echo'] }] });
    expect((response.output[0] as Json).tools.map((t: Json) => t.name)).toEqual(['echo']);
    const offered = fake
      .received('POST /chat/completions')
      .at(-1)!
      .json()
      .tools.map((t: Json) => t.function.name);
    expect(offered).toEqual(['remote__echo']);
  });

  for (const [provider, model] of [
    ['deepseek', 'm'],
    ['anthropic', 'claude-sonnet-4-5'],
  ])
    it(`${provider}: responses.stream shows the list, the call and the answer as OpenAI events`, async () => {
      plan.tool = 'echo';
      plan.args = { text: 'streamed' };
      const stream = sdk(provider).responses.stream({ model, input: 'Echo streamed', tools: [MCP_TOOL] });
      const types: string[] = [];
      stream.on('event', (event) => types.push(event.type));
      const final = await stream.finalResponse();
      for (const type of [
        'response.created',
        'response.mcp_list_tools.in_progress',
        'response.mcp_list_tools.completed',
        'response.mcp_call_arguments.delta',
        'response.mcp_call_arguments.done',
        'response.mcp_call.in_progress',
        'response.mcp_call.completed',
        'response.output_text.delta',
        'response.completed',
      ])
        expect(types).toContain(type);
      expect(types.indexOf('response.mcp_call.completed')).toBeLessThan(types.indexOf('response.output_text.delta'));
      expect(final.output.map((i) => i.type)).toEqual(['mcp_list_tools', 'mcp_call', 'message']);
      expect(final.output[1]).toMatchObject({ type: 'mcp_call', name: 'echo', output: 'echo: streamed' });
      expect(final.output_text).toBe('The tool said: echo: streamed');
      // kept: retrievable like any response
      const kept = await sdk(provider).responses.retrieve(final.id);
      expect(kept.output.map((i) => i.type)).toEqual(['mcp_list_tools', 'mcp_call', 'message']);
    });

  for (const [provider, model] of [
    ['anthropic', 'claude-sonnet-4-5'],
    ['openai', 'gpt-4.1'],
  ])
    it(`${provider}: require_approval (the default): an mcp_approval_request; approved with mcp_approval_response and previous_response_id, the call runs`, async () => {
      plan.tool = 'echo';
      plan.args = { text: 'approved' };
      const client = sdk(provider);
      const before = remote.calls.length;
      const first = await client.responses.create({ model, input: 'Echo approved', tools: [{ type: 'mcp', server_label: 'remote' }] });
      expect(first.output.map((i) => i.type)).toEqual(['mcp_list_tools', 'mcp_approval_request']);
      const request = first.output[1] as Json;
      expect(request).toMatchObject({ server_label: 'remote', name: 'echo', arguments: '{"text":"approved"}' });
      expect(remote.calls.length).toBe(before);
      const second = await client.responses.create({
        model,
        previous_response_id: first.id,
        input: [{ type: 'mcp_approval_response', approval_request_id: request.id, approve: true }],
        tools: [{ type: 'mcp', server_label: 'remote' }],
      });
      // the tools were listed in the conversation already: no second mcp_list_tools
      expect(second.output.map((i) => i.type)).toEqual(['mcp_call', 'message']);
      expect(second.output[0]).toMatchObject({ name: 'echo', output: 'echo: approved', approval_request_id: request.id });
      expect(second.output_text).toBe('The tool said: echo: approved');
      expect(remote.calls.slice(before).map((c) => c.tool)).toEqual(['echo']);
    });

  it('streamed: the approval request is an output item of the stream, and the response ends completed with it', async () => {
    plan.tool = 'echo';
    plan.args = { text: 'ask first' };
    const before = remote.calls.length;
    const stream = sdk('deepseek').responses.stream({ model: 'm', input: 'Echo', tools: [{ type: 'mcp', server_label: 'remote' }] });
    const added: Json[] = [];
    stream.on('response.output_item.added', (e) => added.push(e.item as Json));
    const final = await stream.finalResponse();
    expect(added.map((i) => i.type)).toEqual(['mcp_list_tools', 'mcp_approval_request']);
    expect(final.status).toBe('completed');
    expect(final.output[1]).toMatchObject({ type: 'mcp_approval_request', name: 'echo', arguments: '{"text":"ask first"}' });
    expect(remote.calls.length).toBe(before);
  });

  it('a denied approval: the call never runs and the model is told', async () => {
    plan.tool = 'echo';
    plan.args = { text: 'denied' };
    const client = sdk('deepseek');
    const before = remote.calls.length;
    const first = await client.responses.create({ model: 'm', input: 'Echo denied', tools: [{ type: 'mcp', server_label: 'remote', require_approval: 'always' }] });
    const request = first.output.find((i) => i.type === 'mcp_approval_request') as Json;
    const second = await client.responses.create({
      model: 'm',
      previous_response_id: first.id,
      input: [{ type: 'mcp_approval_response', approval_request_id: request.id, approve: false }],
      tools: [{ type: 'mcp', server_label: 'remote', require_approval: 'always' }],
    });
    expect(second.output_text).toMatch(/^The tool said: Error: the call was not made \(the caller denied it\)/);
    expect(remote.calls.length).toBe(before);
  });

  it('a tool that hangs: the loop ends at its time limit with the answer so far (incomplete), and the server is told to cancel', async () => {
    plan.tool = 'slow';
    plan.args = { ms: 20_000 };
    const started = Date.now();
    const response = await sdk('deepseek').responses.create({ model: 'm', input: 'Wait', tools: [MCP_TOOL] });
    expect(Date.now() - started).toBeLessThan(8000);
    expect(response.status).toBe('incomplete');
    expect(response.incomplete_details).toEqual({ reason: 'max_time' });
    expect(response.output.map((i) => i.type)).toEqual(['mcp_list_tools', 'mcp_call']);
    expect(response.output[1]).toMatchObject({ name: 'slow', status: 'failed', output: null });
    expect((response.output[1] as Json).error).toMatch(/cancelled: the tool loop reached its time limit/);
    await eventually(() => remote.requests.some((r) => r.body?.method === 'notifications/cancelled'), 5000, 'notifications/cancelled');
  });

  it('a model call still running at the time limit: the loop ends with the answer so far (incomplete, max_time)', async () => {
    plan.tool = 'echo';
    plan.args = { text: 'then hang' };
    plan.hangAfterTool = true;
    try {
      const started = Date.now();
      const response = await sdk('deepseek').responses.create({ model: 'm', input: 'Echo', tools: [MCP_TOOL] });
      expect(Date.now() - started).toBeLessThan(8000);
      expect(response.status).toBe('incomplete');
      expect(response.incomplete_details).toEqual({ reason: 'max_time' });
      expect(response.output.map((i) => i.type)).toEqual(['mcp_list_tools', 'mcp_call']);
      expect(response.output[1]).toMatchObject({ name: 'echo', output: 'echo: then hang', status: 'completed' });
    } finally {
      plan.hangAfterTool = false;
    }
  });

  it('streamed, a model answer cut by the time limit mid-text: the caller keeps the text so far, the item is closed, and the response is incomplete (max_time)', async () => {
    plan.tool = 'echo';
    plan.args = { text: 'cut' };
    // the model sends its first word, then nothing more
    plan.gate = new Promise<void>(() => undefined);
    try {
      const stream = sdk('deepseek').responses.stream({ model: 'm', input: 'Echo', tools: [MCP_TOOL] });
      const events: Json[] = [];
      stream.on('event', (event) => events.push(event));
      const final = await stream.finalResponse();
      expect(final.status).toBe('incomplete');
      expect(final.incomplete_details).toEqual({ reason: 'max_time' });
      expect(final.output.map((i) => i.type)).toEqual(['mcp_list_tools', 'mcp_call', 'message']);
      expect(final.output_text).toBe('The ');
      expect(final.output[2]).toMatchObject({ type: 'message', status: 'incomplete' });
      const types = events.map((e) => e.type);
      expect(types.slice(types.indexOf('response.output_text.delta'))).toEqual([
        'response.output_text.delta',
        'response.output_text.done',
        'response.content_part.done',
        'response.output_item.done',
        'response.incomplete',
      ]);
    } finally {
      plan.gate = undefined;
    }
  });

  it('max_tool_calls: 0 ends the loop before any call (incomplete, max_tool_calls)', async () => {
    plan.tool = 'add';
    plan.args = { a: 1, b: 1 };
    const before = remote.calls.length;
    const response = await sdk('deepseek').responses.create({ model: 'm', input: 'Add', tools: [MCP_TOOL], ...({ max_tool_calls: 0 } as object) });
    expect(response.status).toBe('incomplete');
    expect(response.incomplete_details).toEqual({ reason: 'max_tool_calls' });
    expect(remote.calls.length).toBe(before);
  });

  it('a caller that goes away mid-call: the loop stops and the tool server receives notifications/cancelled', async () => {
    plan.tool = 'slow';
    plan.args = { ms: 1200 };
    const cancelledBefore = remote.requests.filter((r) => r.body?.method === 'notifications/cancelled').length;
    const modelCallsBefore = fake.received('POST /chat/completions').length;
    const controller = new AbortController();
    const res = await fetch(`${gw.url}/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-provider-key-1', 'x-gateway-provider': 'deepseek' },
      body: JSON.stringify({ model: 'm', input: 'Wait', tools: [MCP_TOOL], stream: true }),
      signal: controller.signal,
    });
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let seen = '';
    while (!seen.includes('response.mcp_call.in_progress')) {
      const { value, done } = await reader.read();
      if (done) break;
      seen += decoder.decode(value);
    }
    expect(seen).toContain('response.mcp_call.in_progress');
    controller.abort();
    await eventually(() => remote.requests.filter((r) => r.body?.method === 'notifications/cancelled').length > cancelledBefore, 5000, 'notifications/cancelled');
    // The request ends when the loop has stopped: the edge waits for the loop's next event, and a
    // loop that went on would have called the model (which reached the fake) before sending one.
    await requestsEnded();
    expect(fake.received('POST /chat/completions').length).toBe(modelCallsBefore + 1);
  });

  it('not streamed: a caller that goes away while a tool runs stops the loop too (notifications/cancelled, no further model call)', async () => {
    plan.tool = 'slow';
    plan.args = { ms: 1200 };
    const cancelledBefore = remote.requests.filter((r) => r.body?.method === 'notifications/cancelled').length;
    const callsBefore = remote.calls.length;
    const modelCallsBefore = fake.received('POST /chat/completions').length;
    const controller = new AbortController();
    const answer = fetch(`${gw.url}/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-provider-key-1', 'x-gateway-provider': 'deepseek' },
      body: JSON.stringify({ model: 'm', input: 'Wait', tools: [MCP_TOOL] }),
      signal: controller.signal,
    }).catch((err) => err);
    await eventually(() => remote.calls.length > callsBefore, 5000, 'the slow call');
    controller.abort();
    expect(await answer).toBeInstanceOf(Error);
    await eventually(() => remote.requests.filter((r) => r.body?.method === 'notifications/cancelled').length > cancelledBefore, 5000, 'notifications/cancelled');
    // The request ends when its pipeline (the whole loop) has: a further model call would have been made by then.
    await requestsEnded();
    expect(fake.received('POST /chat/completions').length).toBe(modelCallsBefore + 1);
  });

  it('400 for malformed mcp tools: no server_label, allowed_tools or require_approval of the wrong type', async () => {
    const client = sdk('deepseek');
    const bad = async (tool: Json, param: string) => {
      const err: any = await client.responses.create({ model: 'm', input: 'x', tools: [tool as any] }).then(
        () => undefined,
        (e) => e,
      );
      expect(err?.status).toBe(400);
      expect(err?.error?.param).toBe(param);
    };
    await bad({ type: 'mcp' }, 'tools[0].server_label');
    await bad({ type: 'mcp', server_label: 'remote', allowed_tools: 'echo' }, 'tools[0].allowed_tools');
    await bad({ type: 'mcp', server_label: 'remote', require_approval: 'sometimes' }, 'tools[0].require_approval');
  });

  it('400 for a server_label the gateway does not have, and for an outside server_url on a provider that cannot run it', async () => {
    const client = sdk('deepseek');
    await expect(client.responses.create({ model: 'm', input: 'x', tools: [{ type: 'mcp', server_label: 'nope', require_approval: 'never' }] })).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining('no tool server named "nope"'),
    });
    await expect(
      client.responses.create({ model: 'm', input: 'x', tools: [{ type: 'mcp', server_label: 'deepwiki', server_url: 'https://mcp.deepwiki.com/mcp' }] }),
    ).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining('"deepwiki"'),
    });
  });

  it('an outside server_url goes to openai untouched (openai runs such tools itself)', async () => {
    fake.on('POST /oai/responses', { json: { id: 'resp_x', object: 'response', created_at: 1, model: 'gpt-4.1', status: 'completed', output: [], usage: null } });
    try {
      const tool = { type: 'mcp' as const, server_label: 'deepwiki', server_url: 'https://mcp.deepwiki.com/mcp', require_approval: 'never' as const };
      await sdk('openai').responses.create({ model: 'gpt-4.1', input: 'x', tools: [tool] });
      expect(fake.received('POST /oai/responses').at(-1)!.json().tools).toEqual([tool]);
    } finally {
      fake.on('POST /oai/responses', responsesModel);
    }
  });
});

describe('/v1/responses mcp tools run with the caller’s permissions', () => {
  const READER = 'reader-key-without-mcp-write-0001';
  const NARROW = 'narrow-key-echo-and-whoami-only-01';
  const BLIND = 'blind-key-for-another-server-only-1';
  let remote: HttpToolServer;
  let fake: FakeUpstream;
  let gw: TestGateway;

  let loop: LoopGateway;

  beforeAll(async () => {
    loop = await startLoopGateway(({ remote }) => ({
      auth: {
        enabled: true,
        type: 'api-key',
        adminToken: 'admin-token-0123456789abcdef0123456789',
        providerRoutes: true,
        apiKeys: [
          { key: READER, user: 'reader', scopes: ['mcp:read'] },
          {
            key: NARROW,
            user: 'nina',
            name: 'Nina Narrow',
            email: 'nina@example.org',
            team: 'blue',
            scopes: ['mcp:read', 'mcp:write'],
            permissions: { tools: ['remote__echo', 'remote__whoami', 'remote__late'] },
          },
          { key: BLIND, user: 'blind', scopes: ['mcp:read', 'mcp:write'], permissions: { servers: ['elsewhere'] } },
        ],
      },
      mcpServers: { remote: { url: remote.url, pin: 'strict' } },
    }));
    ({ remote, fake, gw } = loop);
  });
  const narrow = () =>
    new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: 'sk-provider-key-1', defaultHeaders: { 'x-gateway-provider': 'deepseek', 'x-gateway-token': NARROW }, maxRetries: 0 });
  afterAll(() => loop?.close());

  it('a caller without mcp:write: the call is refused (audited), the model is told it failed, nothing runs on the server', async () => {
    plan.tool = 'add';
    plan.args = { a: 2, b: 3 };
    const client = new OpenAI({
      baseURL: `${gw.url}/v1`,
      apiKey: 'sk-provider-key-1',
      defaultHeaders: { 'x-gateway-provider': 'deepseek', 'x-gateway-token': READER },
      maxRetries: 0,
    });
    const response = await client.responses.create({ model: 'm', input: 'Add', tools: [MCP_TOOL] });
    const call = response.output.find((i) => i.type === 'mcp_call') as Json;
    expect(call).toMatchObject({ name: 'add', status: 'failed', output: null });
    expect(call.error).toMatch(/mcp:write/);
    expect(response.output_text).toMatch(/^The tool said: Error: .*mcp:write/);
    expect(remote.calls).toEqual([]);
    expect(gw.logs.records().some((r: Json) => r.msg?.includes?.('mcp') && r.allowed === false)).toBe(true);
  });

  it('without a gateway credential the mcp tool is refused (401)', async () => {
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: 'sk-provider-key-1', defaultHeaders: { 'x-gateway-provider': 'deepseek' }, maxRetries: 0 });
    await expect(client.responses.create({ model: 'm', input: 'Add', tools: [MCP_TOOL] })).rejects.toMatchObject({ status: 401 });
  });

  it('streamed: a refused call is response.mcp_call.failed; a server the caller may not use is response.mcp_list_tools.failed (nothing offered, nothing runs)', async () => {
    plan.tool = 'add';
    plan.args = { a: 1, b: 1 };
    const stream = async (key: string) => {
      const client = new OpenAI({
        baseURL: `${gw.url}/v1`,
        apiKey: 'sk-provider-key-1',
        defaultHeaders: { 'x-gateway-provider': 'deepseek', 'x-gateway-token': key },
        maxRetries: 0,
      });
      const events = client.responses.stream({ model: 'm', input: 'Add', tools: [MCP_TOOL] });
      const types: string[] = [];
      events.on('event', (e) => types.push(e.type));
      return { types, final: await events.finalResponse() };
    };
    const before = remote.calls.length;
    const refused = await stream(READER);
    expect(refused.types).toEqual(expect.arrayContaining(['response.mcp_call.in_progress', 'response.mcp_call.failed']));
    expect(refused.types).not.toContain('response.mcp_call.completed');
    expect(refused.final.output.find((i) => i.type === 'mcp_call')).toMatchObject({ status: 'failed', error: expect.stringMatching(/mcp:write/) });
    const blind = await stream(BLIND);
    expect(blind.types).toEqual(expect.arrayContaining(['response.mcp_list_tools.in_progress', 'response.mcp_list_tools.failed']));
    expect(blind.final.output[0]).toMatchObject({ type: 'mcp_list_tools', tools: [], error: expect.stringContaining('may not use tool server remote') });
    expect(blind.final.output_text).toBe('No tool.');
    expect(remote.calls.length).toBe(before);
  });

  it('on chat completions, a server the caller may not use is a 403 naming it before any model call (chat has no list item to report it in)', async () => {
    const client = new OpenAI({
      baseURL: `${gw.url}/v1`,
      apiKey: 'sk-provider-key-1',
      defaultHeaders: { 'x-gateway-provider': 'deepseek', 'x-gateway-token': BLIND },
      maxRetries: 0,
    });
    const modelCalls = fake.received('POST /chat/completions').length;
    const refused = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'Add' }], tools: [MCP_TOOL as any] }).then(
      () => undefined,
      (err: unknown) => err as InstanceType<typeof OpenAI.APIError>,
    );
    expect(refused?.status).toBe(403);
    expect(refused?.error).toMatchObject({ type: 'permission_error', code: 'insufficient_permissions' });
    expect(refused?.message).toMatch(/tools\[0\]: this credential may not use the tool server "remote"/);
    expect(fake.received('POST /chat/completions').length).toBe(modelCalls);
  });

  it('the list is what the caller’s permissions allow: the model is offered only those tools', async () => {
    plan.tool = 'echo';
    plan.args = { text: 'narrow' };
    const response = await narrow().responses.create({ model: 'm', input: 'Echo', tools: [MCP_TOOL] });
    expect(((response.output[0] as Json).tools as Json[]).map((t) => t.name).sort()).toEqual(['echo', 'whoami']);
    expect(
      fake
        .received('POST /chat/completions')
        .at(-1)!
        .json()
        .tools.map((t: Json) => t.function.name)
        .sort(),
    ).toEqual(['remote__echo', 'remote__whoami']);
    expect(response.output_text).toBe('The tool said: echo: narrow');
  });

  it('the tool server gets the caller’s identity (identity forwarding, as on /mcp)', async () => {
    plan.tool = 'whoami';
    plan.args = {};
    const response = await narrow().responses.create({ model: 'm', input: 'Who am I?', tools: [MCP_TOOL] });
    const call = response.output.find((i) => i.type === 'mcp_call') as Json;
    expect(JSON.parse(call.output)).toMatchObject({ name: 'Nina Narrow', email: 'nina@example.org', team: 'blue' });
    expect(remote.calls.at(-1)).toMatchObject({ tool: 'whoami', headers: expect.objectContaining({ 'x-user-name': 'Nina Narrow', 'x-user-team': 'blue' }) });
  });

  it('pinning (pin: strict): a tool that appears after the server was pinned is neither offered to the model nor run', async () => {
    // the first list pins the server's tools
    plan.tool = 'echo';
    plan.args = { text: 'pin' };
    await narrow().responses.create({ model: 'm', input: 'Echo', tools: [MCP_TOOL] });
    remote.addTool('late');
    await eventually(() => gw.logs.records().some((r: Json) => r.msg === 'mcp tool definition new' && r.name === 'late'), 5000, 'the new tool noticed');
    plan.tool = 'late';
    plan.args = {};
    const before = remote.calls.length;
    const response = await narrow().responses.create({ model: 'm', input: 'Late?', tools: [{ ...MCP_TOOL, allowed_tools: ['echo', 'late'] }] });
    expect(((response.output[0] as Json).tools as Json[]).map((t) => t.name)).toEqual(['echo']);
    expect(response.output_text).toBe('No tool.');
    expect(remote.calls.length).toBe(before);
  });
});

describe('the gateway’s limits of a loop (tool-loop stage: maxIterations, maxToolCalls, parallelCalls)', () => {
  let remote: HttpToolServer;
  let fake: FakeUpstream;
  let gw: TestGateway;
  let dir: string;
  let loop: LoopGateway;
  const sdk = () => new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: 'sk-provider-key-1', defaultHeaders: { 'x-gateway-provider': 'deepseek' }, maxRetries: 0 });
  const modelCalls = () => fake.received('POST /chat/completions').length;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tool-loop-limits-'));
    writeFileSync(join(dir, 'responses.yaml'), 'name: responses\nextends: responses\nconfigure:\n  tool-loop: { maxIterations: 3, maxToolCalls: 4, parallelCalls: 2 }\n');
    loop = await startLoopGateway(() => ({ pipelines: { dir } }));
    ({ remote, fake, gw } = loop);
  });
  afterAll(async () => {
    await loop?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
    plan.repeat = false;
    plan.parallel = undefined;
  });

  it('a model that never stops calling tools: the loop ends after maxIterations model calls (incomplete, max_iterations)', async () => {
    plan.tool = 'echo';
    plan.args = { text: 'again' };
    plan.repeat = true;
    try {
      const before = modelCalls();
      const response = await sdk().responses.create({ model: 'm', input: 'Echo forever', tools: [MCP_TOOL] });
      expect(response.status).toBe('incomplete');
      expect(response.incomplete_details).toEqual({ reason: 'max_iterations' });
      expect(response.output.map((i) => i.type)).toEqual(['mcp_list_tools', 'mcp_call', 'mcp_call', 'mcp_call']);
      expect(modelCalls() - before).toBe(3);
    } finally {
      plan.repeat = false;
    }
  });

  it('maxToolCalls bounds the calls of the loop, and a larger max_tool_calls of the request does not raise it; a smaller one lowers it', async () => {
    plan.tool = 'echo';
    plan.repeat = true;
    plan.parallel = [{ text: 'a' }, { text: 'b' }, { text: 'c' }];
    try {
      let before = remote.calls.length;
      const bounded = await sdk().responses.create({ model: 'm', input: 'Echo', tools: [MCP_TOOL], ...({ max_tool_calls: 10 } as object) });
      expect(bounded.status).toBe('incomplete');
      expect(bounded.incomplete_details).toEqual({ reason: 'max_tool_calls' });
      // three calls of the first turn, one of the second
      expect(bounded.output.filter((i) => i.type === 'mcp_call')).toHaveLength(4);
      expect(remote.calls.length - before).toBe(4);
      before = remote.calls.length;
      const lowered = await sdk().responses.create({ model: 'm', input: 'Echo', tools: [MCP_TOOL], ...({ max_tool_calls: 2 } as object) });
      expect(lowered.incomplete_details).toEqual({ reason: 'max_tool_calls' });
      expect(lowered.output.filter((i) => i.type === 'mcp_call')).toHaveLength(2);
      expect(remote.calls.length - before).toBe(2);
    } finally {
      plan.repeat = false;
      plan.parallel = undefined;
    }
  });

  it('the calls of one turn run concurrently, parallelCalls at most at once; parallel_tool_calls: false runs them one after the other', async () => {
    plan.tool = 'slow';
    plan.parallel = [{ ms: 700 }, { ms: 700 }, { ms: 700 }];
    try {
      remote.slowMostAtOnce = 0;
      const response = await sdk().responses.create({ model: 'm', input: 'Wait thrice', tools: [MCP_TOOL] });
      expect(response.status).toBe('completed');
      expect(response.output.filter((i) => i.type === 'mcp_call').map((c) => (c as Json).output)).toEqual(['done', 'done', 'done']);
      expect(remote.slowMostAtOnce).toBe(2);
      remote.slowMostAtOnce = 0;
      const serial = await sdk().responses.create({ model: 'm', input: 'Wait thrice', tools: [MCP_TOOL], parallel_tool_calls: false });
      expect(serial.output.filter((i) => i.type === 'mcp_call')).toHaveLength(3);
      expect(remote.slowMostAtOnce).toBe(1);
    } finally {
      plan.parallel = undefined;
    }
  });
});
