/**
 * A tool loop under a fallback routing config: a model call that fails with a status the
 * fallback acts on (503), after a tool already ran, moves alone to the next target; the rounds
 * before it and their tool results are kept, and no tool runs twice (/v1/responses, chat and
 * /v1/messages). And a loop that ends in an error still counts the tokens of its earlier model
 * calls against the key's per-minute token limit (tpm).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { FakeUpstream, type ReceivedRequest } from '../../helpers/fake-upstream.js';
import { HttpToolServer } from '../../helpers/http-tool-server.js';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';
import { chatModel, MCP_TOOL, plan, responsesModel } from './fake-models.js';
import { startLoopGateway, type LoopGateway } from './loop-gateway.js';

type Json = Record<string, any>;

const OPENAI_TARGET_KEY = 'sk-openai-target-key-0001';

/** A 503 the first target answers the loop's second model call with. */
function unavailable(_req: ReceivedRequest, res: import('node:http').ServerResponse): void {
  res.writeHead(503, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'Overloaded.', type: 'server_error', code: null } }));
}

describe('a tool loop under a fallback routing config', () => {
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

  const headers = (strategy: Json = { mode: 'fallback' }) => ({
    'content-type': 'application/json',
    'x-gateway-api-key': 'sk-provider-key-1',
    'x-gateway-config': JSON.stringify({ strategy, targets: [{ provider: 'deepseek' }, { provider: 'openai', api_key: OPENAI_TARGET_KEY }] }),
  });

  const routes: Array<{ route: string; path: string; upstream: string; body: Json; text: (answer: Json) => unknown }> = [
    {
      route: '/v1/responses',
      path: '/v1/responses',
      upstream: 'POST /oai/responses',
      body: { model: 'm', input: 'What is 2 + 3?', tools: [MCP_TOOL] },
      text: (answer) => answer.output.find((i: Json) => i.type === 'message')?.content[0].text,
    },
    {
      route: 'chat',
      path: '/v1/chat/completions',
      upstream: 'POST /oai/chat/completions',
      body: { model: 'm', messages: [{ role: 'user', content: 'What is 2 + 3?' }], tools: [{ type: 'mcp', server_label: 'remote' }] },
      text: (answer) => answer.choices[0].message.content,
    },
    {
      route: '/v1/messages',
      path: '/v1/messages',
      upstream: 'POST /oai/chat/completions',
      body: { model: 'm', max_tokens: 64, messages: [{ role: 'user', content: 'What is 2 + 3?' }], mcp_servers: [{ type: 'url', url: '/mcp/remote', name: 'remote' }] },
      text: (answer) => answer.content.find((b: Json) => b.type === 'text')?.text,
    },
  ];

  for (const { route, path, upstream, body, text } of routes) {
    it(`${route}: the first target answers a tool call, then 503; the failed call alone goes to the next target, the tool runs once`, async () => {
      plan.tool = 'add';
      plan.args = { a: 2, b: 3 };
      first.requests.length = 0;
      second.requests.length = 0;
      first.on('POST /chat/completions', chatModel, unavailable);
      second.on('POST /oai/responses', responsesModel).on('POST /oai/chat/completions', chatModel);
      const callsBefore = remote.calls.length;
      const res = await fetch(`${gw.url}${path}`, { method: 'POST', headers: headers(), body: JSON.stringify(body) });
      const answer = (await res.json()) as Json;
      expect(res.status, JSON.stringify(answer)).toBe(200);
      expect(text(answer)).toBe('The tool said: 5');
      // exactly one tools/call: the round of the first target was kept, not run again
      expect(remote.calls.slice(callsBefore).map((c) => c.tool)).toEqual(['add']);
      expect(first.received('POST /chat/completions')).toHaveLength(2);
      const resumed = second.received(upstream);
      expect(resumed).toHaveLength(1);
      // the next target got the conversation so far: the call and its result
      expect(JSON.stringify(resumed[0]!.json())).toContain('5');
      expect(resumed[0]!.headers.authorization).toBe(`Bearer ${OPENAI_TARGET_KEY}`);
      expect(res.headers.get('x-gateway-target-index')).toBe('1');
      expect(res.headers.get('x-gateway-provider')).toBe('openai');
    });
  }

  it('chat: the first target answers a tool call, then 200 with a body that is not JSON: its bad answer (502) moves alone to the next target', async () => {
    plan.tool = 'add';
    plan.args = { a: 2, b: 3 };
    first.requests.length = 0;
    second.requests.length = 0;
    first.on('POST /chat/completions', chatModel, { raw: '{"choices": [ cut', headers: { 'content-type': 'application/json' } });
    second.on('POST /oai/chat/completions', chatModel);
    const callsBefore = remote.calls.length;
    const res = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: headers(), body: JSON.stringify(routes[1]!.body) });
    const answer = (await res.json()) as Json;
    expect(res.status, JSON.stringify(answer)).toBe(200);
    expect(answer.choices[0].message.content).toBe('The tool said: 5');
    expect(remote.calls.slice(callsBefore).map((c) => c.tool)).toEqual(['add']);
    expect(second.received('POST /oai/chat/completions')).toHaveLength(1);
  });

  it('a status the fallback does not act on (on_status_codes without 503): the error is the answer, the tool ran once, the next target gets nothing', async () => {
    plan.tool = 'add';
    plan.args = { a: 2, b: 3 };
    first.requests.length = 0;
    second.requests.length = 0;
    first.on('POST /chat/completions', chatModel, unavailable);
    second.on('POST /oai/responses', responsesModel);
    const callsBefore = remote.calls.length;
    const res = await fetch(`${gw.url}/v1/responses`, { method: 'POST', headers: headers({ mode: 'fallback', on_status_codes: [429] }), body: JSON.stringify(routes[0]!.body) });
    const answer = (await res.json()) as Json;
    // an upstream 5xx is the contract's 502 provider_error, naming the provider
    expect(res.status).toBe(502);
    expect(answer.error).toMatchObject({ code: 'provider_error', provider: 'deepseek', message: expect.stringContaining('Overloaded') });
    expect(remote.calls.slice(callsBefore).map((c) => c.tool)).toEqual(['add']);
    expect(second.requests).toHaveLength(0);
  });

  it('the next target fails too: the last failure is the answer, and the tool still ran once', async () => {
    plan.tool = 'add';
    plan.args = { a: 2, b: 3 };
    first.requests.length = 0;
    second.requests.length = 0;
    first.on('POST /chat/completions', chatModel, unavailable);
    // the next target calls the tool too when asked from the start; asked with the tool's result, it fails
    second.on('POST /oai/responses', (req, res) => (req.json().input.some((i: Json) => i.type === 'function_call_output') ? unavailable(req, res) : responsesModel(req, res)));
    const callsBefore = remote.calls.length;
    const res = await fetch(`${gw.url}/v1/responses`, { method: 'POST', headers: headers(), body: JSON.stringify(routes[0]!.body) });
    expect(res.status).toBe(502);
    expect(((await res.json()) as Json).error).toMatchObject({ code: 'provider_error', provider: 'openai' });
    expect(res.headers.get('x-gateway-provider')).toBe('openai');
    expect(remote.calls.slice(callsBefore).map((c) => c.tool)).toEqual(['add']);
    expect(second.received('POST /oai/responses')).toHaveLength(1);
  });
});

describe('a tool loop that ends in an error, and token limits', () => {
  const ADMIN = 'admin-token-tool-loop-tpm-0123456789abcdef';
  let loop: LoopGateway;
  let gw: TestGateway;

  beforeAll(async () => {
    loop = await startLoopGateway(() => ({
      auth: { enabled: true, type: 'api-key', providerRoutes: true, adminToken: ADMIN },
      // a token rule of the gateway's rate limits, on chat only
      rateLimits: [{ per: 'key', limit: 1000, window: '1h', tokens: 15, routes: ['/v1/chat/completions'] }],
    }));
    ({ gw } = loop);
  });
  /** A gateway key that may call the tools, with `limits`. */
  const issueKey = async (limits?: Json): Promise<string> => {
    const issued = await fetch(`${gw.url}/v1/auth/tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ user: 'ann', scopes: ['mcp:read', 'mcp:write'], ...(limits ? { limits } : {}) }),
    });
    expect(issued.status).toBe(201);
    return ((await issued.json()) as Json).token as string;
  };
  afterAll(async () => {
    plan.failAfterTool = undefined;
    await loop?.close();
  });

  it('counts the tokens of the model calls that answered before the failure: the next request is refused', async () => {
    plan.tool = 'add';
    plan.args = { a: 1, b: 1 };
    // the tool-calling turn answers (15 tokens), the turn after the tool result fails (400, no fallback, no tokens)
    plan.failAfterTool = true;
    for (let attempt = 0; attempt < 3; attempt++) {
      const key = await issueKey({ tpm: 15 });
      const minute = Math.floor(Date.now() / 60_000);
      const send = () =>
        fetch(`${gw.url}/v1/responses`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: 'Bearer sk-provider-key-1', 'x-gateway-token': key, 'x-gateway-provider': 'deepseek' },
          body: JSON.stringify({ model: 'm', input: 'Add', tools: [MCP_TOOL] }),
        });
      const callsBefore = loop.remote.calls.length;
      const failed = await send();
      expect(failed.status).toBe(400);
      expect(loop.remote.calls.length - callsBefore).toBe(1);
      // the counter is written after the answer: the next request sees it soon (a request that is not refused fails the same way, counting nothing of its own before the fix)
      await vi.waitFor(async () => expect((await send()).status).toBe(429), { timeout: 3000, interval: 50 });
      if (Math.floor(Date.now() / 60_000) !== minute) continue;
      return;
    }
    throw new Error('three minute boundaries crossed');
  });

  it('rateLimits token rules count them too', async () => {
    plan.tool = 'add';
    plan.args = { a: 1, b: 1 };
    plan.failAfterTool = true;
    const key = await issueKey();
    const send = () =>
      fetch(`${gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer sk-provider-key-1', 'x-gateway-token': key, 'x-gateway-provider': 'deepseek' },
        body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'Add' }], tools: [{ type: 'mcp', server_label: 'remote' }] }),
      });
    const callsBefore = loop.remote.calls.length;
    expect((await send()).status).toBe(400);
    expect(loop.remote.calls.length - callsBefore).toBe(1);
    await vi.waitFor(
      async () => {
        const res = await send();
        expect(res.status).toBe(429);
        expect(((await res.json()) as Json).error.message).toMatch(/15 tokens per 1h/);
      },
      { timeout: 3000, interval: 50 },
    );
  });
});
