import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';
import { startHttpToolServer, stdioToolServerEntry } from '../../helpers/conformance-suite.js';
import { eventually, rawPost } from '../../helpers/mcp.js';

const V = '2026-07-28';
const KEY = 'rounds-test-key-0123456789';
const OTHER = 'rounds-other-key-0123456789';

/** A 2026-07-28 request of a client that can be asked (elicitation, sampling, roots). */
function modern(method: string, params: Record<string, unknown>, capabilities: Record<string, unknown>, extraMeta: Record<string, unknown> = {}) {
  const meta = {
    'io.modelcontextprotocol/protocolVersion': V,
    'io.modelcontextprotocol/clientInfo': { name: 'rounds', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': capabilities,
    ...extraMeta,
  };
  const headers: Record<string, string> = { 'mcp-protocol-version': V, 'mcp-method': method };
  const name = method === 'resources/read' ? params.uri : params.name;
  if (typeof name === 'string') headers['mcp-name'] = name;
  return { body: { jsonrpc: '2.0', id: Math.floor(Math.random() * 1e9), method, params: { ...params, _meta: meta } }, headers };
}

const ASKING = { elicitation: {}, sampling: {}, roots: {} };
const firstText = (result: any) => result?.content?.find((c: any) => c.type === 'text')?.text;

/**
 * Multi-round-trip requests (2026-07-28) to tool servers of earlier revisions: the server's
 * request to the client comes back as an input_required result (inputRequests, requestState);
 * the client's retry with inputResponses answers it, and the call goes on to its result. For
 * a remote and a process server, on /mcp (names S__<name>) and /mcp/<server>.
 */
describe.each(['remote', 'proc'])('2026-07-28 client, earlier-revision server %s: elicitation, sampling and roots in rounds', (name) => {
  let tools: Awaited<ReturnType<typeof startHttpToolServer>>;
  let gw: TestGateway;
  const call = (
    tool: string,
    params: Record<string, unknown>,
    key = KEY,
    capabilities: Record<string, unknown> = ASKING,
    extraMeta: Record<string, unknown> = {},
    path = '/mcp',
  ) => {
    const m = modern('tools/call', { name: tool, ...params }, capabilities, extraMeta);
    return rawPost(`${gw.url}${path}`, m.body, { ...m.headers, 'x-api-key': key });
  };
  const tool = (t: string) => `${name}__${t}`;

  beforeAll(async () => {
    tools = await startHttpToolServer();
    gw = await startGateway({
      logging: { level: 'warn' },
      auth: {
        enabled: true,
        type: 'api-key',
        apiKeys: [
          { key: KEY, user: 'rounds@example.com', scopes: ['mcp:read', 'mcp:write'] },
          { key: OTHER, user: 'other@example.com', scopes: ['mcp:read', 'mcp:write'] },
        ],
      },
      mcpServers: { remote: { url: tools.url }, proc: stdioToolServerEntry() },
    });
    await eventually(async () => (await fetch(`${gw.url}/ready`)).status === 200, 15_000, 'the tool servers');
  }, 60_000);

  afterAll(async () => {
    await gw?.close();
    await tools?.stop();
  });

  it("an elicitation comes back as input_required; the retry's inputResponses complete the call", async () => {
    const first = await call(tool('test_elicitation'), { arguments: { message: 'who are you?' } });
    expect(first.status).toBe(200);
    const result = first.json.result;
    expect(result.resultType).toBe('input_required');
    expect(typeof result.requestState).toBe('string');
    const keys = Object.keys(result.inputRequests);
    expect(keys).toHaveLength(1);
    expect(result.inputRequests[keys[0]!]).toMatchObject({ method: 'elicitation/create', params: { message: 'who are you?', requestedSchema: { type: 'object' } } });

    const second = await call(tool('test_elicitation'), {
      arguments: { message: 'who are you?' },
      inputResponses: { [keys[0]!]: { action: 'accept', content: { username: 'ada', email: 'ada@example.com' } } },
      requestState: result.requestState,
    });
    expect(second.json.result.resultType).toBe('complete');
    expect(firstText(second.json.result)).toBe('User response: action=accept, content={"username":"ada","email":"ada@example.com"}');
  });

  it('sampling and roots requests come back the same way', async () => {
    const sampling = await call(tool('test_sampling'), { arguments: { prompt: 'say hi' } });
    const [sKey, sReq] = Object.entries(sampling.json.result.inputRequests)[0] as [string, any];
    expect(sReq.method).toBe('sampling/createMessage');
    expect(JSON.stringify(sReq.params.messages)).toContain('say hi');
    const sampled = await call(tool('test_sampling'), {
      arguments: { prompt: 'say hi' },
      inputResponses: { [sKey]: { role: 'assistant', content: { type: 'text', text: 'hi there' }, model: 'm' } },
      requestState: sampling.json.result.requestState,
    });
    expect(firstText(sampled.json.result)).toBe('LLM response: hi there');

    const roots = await call(tool('test_roots'), { arguments: {} });
    const [rKey, rReq] = Object.entries(roots.json.result.inputRequests)[0] as [string, any];
    expect(rReq.method).toBe('roots/list');
    const listed = await call(tool('test_roots'), {
      arguments: {},
      inputResponses: { [rKey]: { roots: [{ uri: 'file:///work', name: 'work' }] } },
      requestState: roots.json.result.requestState,
    });
    expect(JSON.parse(firstText(listed.json.result))).toEqual([{ uri: 'file:///work', name: 'work' }]);
  });

  it('a call that asks twice takes three rounds', async () => {
    const one = await call(tool('test_two_questions'), { arguments: {} });
    const [k1, q1] = Object.entries(one.json.result.inputRequests)[0] as [string, any];
    expect(q1.method).toBe('elicitation/create');
    const two = await call(tool('test_two_questions'), {
      arguments: {},
      inputResponses: { [k1]: { action: 'accept', content: { name: 'Grace' } } },
      requestState: one.json.result.requestState,
    });
    expect(two.json.result.resultType).toBe('input_required');
    const [k2, q2] = Object.entries(two.json.result.inputRequests)[0] as [string, any];
    expect(k2).not.toBe(k1);
    expect(q2).toMatchObject({ method: 'sampling/createMessage' });
    expect(JSON.stringify(q2.params.messages)).toContain('Greet Grace');
    const three = await call(tool('test_two_questions'), {
      arguments: {},
      inputResponses: { [k2]: { role: 'assistant', content: { type: 'text', text: 'Hello, Grace!' }, model: 'm' } },
      requestState: two.json.result.requestState,
    });
    expect(three.json.result).toMatchObject({ resultType: 'complete' });
    expect(firstText(three.json.result)).toBe('Grace: Hello, Grace!');
  });

  it('a requestState is good once, for its caller and its request only', async () => {
    const first = await call(tool('test_elicitation'), { arguments: { message: 'x' } });
    const state = first.json.result.requestState as string;
    const key = Object.keys(first.json.result.inputRequests)[0]!;
    const answer = { [key]: { action: 'decline' } };
    const stranger = await call(tool('test_elicitation'), { arguments: { message: 'x' }, inputResponses: answer, requestState: state }, OTHER);
    expect(stranger.json.error).toMatchObject({ code: -32602, message: expect.stringMatching(/Unknown or expired requestState/) });
    const otherTool = await call(tool('test_sampling'), { arguments: { prompt: 'p' }, inputResponses: answer, requestState: state });
    expect(otherTool.json.error).toMatchObject({ code: -32602, message: expect.stringMatching(/belongs to tools\/call/) });
    const done = await call(tool('test_elicitation'), { arguments: { message: 'x' }, inputResponses: answer, requestState: state });
    expect(firstText(done.json.result)).toBe('User response: action=decline, content={}');
    const again = await call(tool('test_elicitation'), { arguments: { message: 'x' }, inputResponses: answer, requestState: state });
    expect(again.json.error.code).toBe(-32602);
    const forged = await call(tool('test_elicitation'), { arguments: { message: 'x' }, requestState: 'gw.not-a-state' });
    expect(forged.json.error.code).toBe(-32602);
  });

  it('a call that asks nothing completes in one round; log messages come only when the request set a logLevel', async () => {
    const plain = await call(tool('test_simple_text'), { arguments: {} });
    expect(plain.json.result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'This is a simple text response for testing.' }] });
    const quiet = await call(tool('test_tool_with_logging'), { arguments: {} });
    expect(quiet.text).not.toContain('notifications/message');
    const logged = await call(tool('test_tool_with_logging'), { arguments: {} }, KEY, ASKING, { 'io.modelcontextprotocol/logLevel': 'info' });
    const events = logged.text
      .split('\n')
      .filter((l) => l.startsWith('data: ') && l.length > 6)
      .map((l) => JSON.parse(l.slice(6)));
    expect(events.filter((e) => e.method === 'notifications/message').map((e) => [e.params.logger, e.params.data])).toEqual([
      [tool('conformance-tools'), 'Tool execution started'],
      [tool('conformance-tools'), 'Tool processing data'],
      [tool('conformance-tools'), 'Tool execution completed'],
    ]);
    expect(events.at(-1).result.resultType).toBe('complete');
    // A client that cannot be asked anything still gets the log messages it asked for.
    const plainLogged = await call(tool('test_tool_with_logging'), { arguments: {} }, KEY, {}, { 'io.modelcontextprotocol/logLevel': 'warning' });
    expect(plainLogged.text).not.toContain('notifications/message');
    const infoLogged = await call(tool('test_tool_with_logging'), { arguments: {} }, KEY, {}, { 'io.modelcontextprotocol/logLevel': 'debug' });
    expect(infoLogged.text.match(/notifications\/message/g)).toHaveLength(3);
  });

  it('works at /mcp/<server> with the server’s own names', async () => {
    const first = await call('test_elicitation', { arguments: { message: 'pinned?' } }, KEY, ASKING, {}, `/mcp/${name}`);
    const key = Object.keys(first.json.result.inputRequests)[0]!;
    const done = await call(
      'test_elicitation',
      { arguments: { message: 'pinned?' }, inputResponses: { [key]: { action: 'cancel' } }, requestState: first.json.result.requestState },
      KEY,
      ASKING,
      {},
      `/mcp/${name}`,
    );
    expect(firstText(done.json.result)).toBe('User response: action=cancel, content={}');
  });
});
