import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropSharedState, sharedStoreConfig } from '../../helpers/shared-stores.js';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';
import { startHttpToolServer, stdioToolServerEntry } from '../../helpers/conformance-suite.js';
import { eventually, rawPost } from '../../helpers/mcp.js';
import { MCP } from '../../../src/features/mcp/mcp-services.js';

const V = '2026-07-28';
const KEY = 'rounds-roaming-key-0123456789';
const OTHER = 'rounds-roaming-other-0123456789';
const ASKING = { elicitation: {}, sampling: {}, roots: {} };

const firstText = (result: any) => result?.content?.find((c: any) => c.type === 'text')?.text;
const eventsOf = (text: string) =>
  text
    .split('\n')
    .filter((l) => l.startsWith('data: ') && l.length > 6)
    .map((l) => JSON.parse(l.slice(6)));

/**
 * Multi-round-trip requests (2026-07-28) whose rounds run on one instance while the client's
 * retries (`requestState`, `inputResponses`) come to another: the retry goes on where the round
 * runs, and what the call says back (progress, log messages, the next questions, the result)
 * reaches the client through the instance its retry came to.
 */
describe.each(['redis', 'postgres'] as const)('2026-07-28 rounds on any instance (%s shared)', (shared) => {
  let tools: Awaited<ReturnType<typeof startHttpToolServer>>;
  let a: TestGateway;
  let b: TestGateway;
  let alone: TestGateway;
  const prefix = `gw-test-${randomUUID()}:`;
  const schema = `gw_mcp_${randomUUID().replace(/-/g, '').slice(0, 12)}`;

  /** A tools/call of a client that can be asked, on /mcp of `gw`. */
  const call = (gw: TestGateway, tool: string, params: Record<string, unknown>, key = KEY, extraMeta: Record<string, unknown> = {}) => {
    const meta = {
      'io.modelcontextprotocol/protocolVersion': V,
      'io.modelcontextprotocol/clientInfo': { name: 'roaming-rounds', version: '1' },
      'io.modelcontextprotocol/clientCapabilities': ASKING,
      ...extraMeta,
    };
    const body = { jsonrpc: '2.0', id: Math.floor(Math.random() * 1e9), method: 'tools/call', params: { name: tool, ...params, _meta: meta } };
    return rawPost(`${gw.url}/mcp`, body, { 'mcp-protocol-version': V, 'mcp-method': 'tools/call', 'mcp-name': tool, 'x-api-key': key });
  };
  const askedOf = (answer: { json: any }) => Object.entries(answer.json.result.inputRequests)[0] as [string, any];

  let config: (share: boolean) => Record<string, unknown>;

  beforeAll(async () => {
    tools = await startHttpToolServer();
    config = (share: boolean) => ({
      logging: { level: 'warn' },
      ...(share ? sharedStoreConfig(shared, prefix, schema) : {}),
      auth: {
        enabled: true,
        type: 'api-key',
        apiKeys: [
          { key: KEY, user: 'roamer@example.com', scopes: ['mcp:read', 'mcp:write'] },
          { key: OTHER, user: 'other@example.com', scopes: ['mcp:read', 'mcp:write'] },
        ],
      },
      mcpServers: { remote: { url: tools.url }, proc: stdioToolServerEntry() },
    });
    [a, b, alone] = await Promise.all([startGateway(config(true)), startGateway(config(true)), startGateway(config(false))]);
    for (const gw of [a, b, alone]) await eventually(async () => (await fetch(`${gw.url}/ready`)).status === 200, 15_000, 'the tool servers');
  }, 60_000);

  afterAll(async () => {
    await Promise.all([a?.close(), b?.close(), alone?.close()]);
    await tools?.stop();
    await dropSharedState(shared, prefix, schema);
  });

  it('a call that asks twice, its retries on the other instance: three rounds, one call', async () => {
    for (const server of ['remote', 'proc']) {
      for (const [first, second, third] of [
        [a, b, b],
        [b, a, b],
      ] as const) {
        const tool = `${server}__test_two_questions`;
        const one = await call(first, tool, { arguments: {} });
        const [k1, q1] = askedOf(one);
        expect(q1.method).toBe('elicitation/create');
        const two = await call(second, tool, {
          arguments: {},
          inputResponses: { [k1]: { action: 'accept', content: { name: 'Grace' } } },
          requestState: one.json.result.requestState,
        });
        expect(two.json.result?.resultType).toBe('input_required');
        const [k2, q2] = askedOf(two);
        expect(q2.method).toBe('sampling/createMessage');
        expect(JSON.stringify(q2.params.messages)).toContain('Greet Grace');
        const three = await call(third, tool, {
          arguments: {},
          inputResponses: { [k2]: { role: 'assistant', content: { type: 'text', text: `Hello from ${server}` }, model: 'm' } },
          requestState: two.json.result.requestState,
        });
        expect(three.json.result).toMatchObject({ resultType: 'complete' });
        expect(firstText(three.json.result)).toBe(`Grace: Hello from ${server}`);
      }
    }
  }, 30_000);

  it("the call's progress and log messages after the retry reach the client through the instance its retry came to", async () => {
    const tool = 'proc__test_ask_then_report';
    const logLevel = { 'io.modelcontextprotocol/logLevel': 'info' };
    const one = await call(a, tool, { arguments: {} }, KEY, logLevel);
    const [key] = askedOf(one);
    const two = await call(b, tool, { arguments: {}, inputResponses: { [key]: { action: 'accept', content: { name: 'Ada' } } }, requestState: one.json.result.requestState }, KEY, {
      ...logLevel,
      progressToken: 'retry-progress',
    });
    const events = eventsOf(two.text);
    expect(events.filter((e) => e.method === 'notifications/progress').map((e) => e.params)).toEqual([{ progressToken: 'retry-progress', progress: 1, total: 1 }]);
    expect(events.filter((e) => e.method === 'notifications/message').map((e) => [e.params.logger, e.params.data])).toEqual([['proc__conformance-tools', 'hello Ada']]);
    expect(firstText(events.at(-1).result)).toBe('reported Ada');
  });

  it('a requestState through the other instance is good once, for its caller and its request only; an instance that does not share the key does not know it', async () => {
    const tool = 'remote__test_elicitation';
    const first = await call(a, tool, { arguments: { message: 'x' } });
    const state = first.json.result.requestState as string;
    const [key] = askedOf(first);
    const answer = { [key]: { action: 'decline' } };
    const stranger = await call(b, tool, { arguments: { message: 'x' }, inputResponses: answer, requestState: state }, OTHER);
    expect(stranger.json.error).toMatchObject({ code: -32602, message: expect.stringMatching(/Unknown or expired requestState/) });
    const otherTool = await call(b, 'remote__test_sampling', { arguments: { prompt: 'p' }, inputResponses: answer, requestState: state });
    expect(otherTool.json.error).toMatchObject({ code: -32602, message: expect.stringMatching(/belongs to tools\/call of remote__test_elicitation/) });
    const elsewhere = await call(alone, tool, { arguments: { message: 'x' }, inputResponses: answer, requestState: state });
    expect(elsewhere.json.error).toMatchObject({ code: -32602, message: expect.stringMatching(/Unknown or expired requestState/) });
    const done = await call(b, tool, { arguments: { message: 'x' }, inputResponses: answer, requestState: state });
    expect(firstText(done.json.result)).toBe('User response: action=decline, content={}');
    for (const gw of [a, b]) {
      const again = await call(gw, tool, { arguments: { message: 'x' }, inputResponses: answer, requestState: state });
      expect(again.json.error).toMatchObject({ code: -32602, message: expect.stringMatching(/Unknown or expired requestState/) });
    }
  });

  it("a retry whose round's instance is gone: Unknown or expired requestState", async () => {
    const c = await startGateway(config(true));
    let closed = false;
    try {
      await eventually(async () => (await fetch(`${c.url}/ready`)).status === 200, 15_000, 'the tool servers');
      const tool = 'remote__test_elicitation';
      const first = await call(c, tool, { arguments: { message: 'x' } });
      const [key] = askedOf(first);
      await c.close();
      closed = true;
      const started = Date.now();
      const retry = await call(b, tool, { arguments: { message: 'x' }, inputResponses: { [key]: { action: 'decline' } }, requestState: first.json.result.requestState });
      expect(retry.json.error).toMatchObject({ code: -32602, message: expect.stringMatching(/Unknown or expired requestState/) });
      expect(Date.now() - started).toBeLessThan(8000);
    } finally {
      if (!closed) await c.close();
    }
  }, 40_000);

  it('the client closing its retry on the other instance ends the round where it runs', async () => {
    const tool = 'proc__test_ask_then_report';
    // After the answer the call waits 20 s: the retry is closed while it does.
    const one = await call(a, tool, { arguments: { ms: 20_000 } });
    const [key] = askedOf(one);
    const state = one.json.result.requestState as string;
    const controller = new AbortController();
    const retry = fetch(`${b.url}/mcp`, {
      method: 'POST',
      signal: controller.signal,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': V,
        'mcp-method': 'tools/call',
        'mcp-name': tool,
        'x-api-key': KEY,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 5,
        method: 'tools/call',
        params: {
          name: tool,
          arguments: { ms: 20_000 },
          inputResponses: { [key]: { action: 'accept', content: { name: 'Lin' } } },
          requestState: state,
          _meta: { 'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': ASKING },
        },
      }),
    }).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 1000));
    controller.abort();
    await retry;
    const rounds = a.gateway.services.require(MCP).parts!.modern.rounds;
    await eventually(() => !rounds.has(state), 5000, 'the round to end');
    const after = await call(b, tool, { arguments: { ms: 20_000 }, inputResponses: {}, requestState: state });
    expect(after.json.error).toMatchObject({ code: -32602, message: expect.stringMatching(/Unknown or expired requestState/) });
  });
});
