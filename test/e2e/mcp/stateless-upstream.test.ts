import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, LoggingMessageNotificationSchema, ToolListChangedNotificationSchema, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';
import { StatelessToolServer } from '../../helpers/stateless-tool-server.js';
import { eventually, rawPost, textOf } from '../../helpers/mcp.js';

const KEY = 'stateless-upstream-key-0123456789';
const V = '2026-07-28';

async function connect(url: string, capabilities: Record<string, unknown> = { elicitation: {} }): Promise<Client> {
  const client = new Client({ name: 'legacy-client', version: '1.0.0' }, { capabilities });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { 'x-api-key': KEY } } }));
  return client;
}

/**
 * A tool server of the stateless revision (2026-07-28) only, behind the gateway: clients of the
 * handshake era (SDK sessions) use it through /mcp and /mcp/<server>, its input_required
 * results turned into requests to the client; 2026-07-28 clients get them as they are.
 */
describe('a tool server of the 2026-07-28 revision only, for clients of either revision', () => {
  let tools: StatelessToolServer;
  let gw: TestGateway;

  beforeAll(async () => {
    tools = await new StatelessToolServer().start();
    gw = await startGateway({
      logging: { level: 'warn' },
      auth: { enabled: true, type: 'api-key', apiKeys: [{ key: KEY, user: 'ada@example.com', scopes: ['mcp:read', 'mcp:write'] }] },
      mcpServers: { modern: { url: tools.url, headers: { Authorization: 'Bearer configured-credential-0123' } } },
    });
    await eventually(async () => (await fetch(`${gw.url}/ready`)).status === 200, 15_000, 'the tool server');
  }, 60_000);

  afterAll(async () => {
    await gw?.close();
    await tools?.stop();
  });

  it('lists and calls on /mcp for an SDK client; requests carry the revision, the headers and the identity', async () => {
    const client = await connect(`${gw.url}/mcp`);
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(expect.arrayContaining(['modern__echo', 'modern__ask_name']));
      const echoed = await client.callTool({ name: 'modern__echo', arguments: { text: 'hi' } });
      expect(echoed).toEqual({ content: [{ type: 'text', text: 'echo: hi' }] });
      const who = JSON.parse(textOf(await client.callTool({ name: 'modern__whoami', arguments: {} })));
      // The configured credential reaches the server, and is masked in whatever the server echoes back.
      expect(who).toEqual({ email: 'ada@example.com', auth: '[REDACTED]' });
      const call = tools.received.findLast((r) => r.body?.method === 'tools/call')!;
      expect(call.headers).toMatchObject({ 'mcp-protocol-version': V, 'mcp-method': 'tools/call', 'mcp-name': 'whoami', authorization: 'Bearer configured-credential-0123' });
      expect(call.body.params._meta).toMatchObject({ 'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } });
      expect(JSON.stringify(tools.received)).not.toContain(KEY);
    } finally {
      await client.close();
    }
  });

  it.each(['/mcp', '/mcp/modern'])('an input_required result becomes an elicitation of the calling client (%s)', async (path) => {
    const client = await connect(`${gw.url}${path}`);
    try {
      if (path === '/mcp/modern') {
        expect(client.getServerVersion()).toMatchObject({ name: 'stateless-tools', version: '2.0.0' });
        expect(client.getInstructions()).toBe('A tool server of the stateless revision.');
      }
      let asked = '';
      client.setRequestHandler(ElicitRequestSchema, async (req) => {
        asked = req.params.message;
        return { action: 'accept', content: { name: 'Ada' } };
      });
      const result = await client.callTool({ name: path === '/mcp' ? 'modern__ask_name' : 'ask_name', arguments: {} });
      expect(asked).toBe('Your name?');
      expect(textOf(result)).toBe('hello Ada');
      const retry = tools.received.findLast((r) => r.body?.params?.name === 'ask_name')!;
      expect(retry.body.params).toMatchObject({ requestState: 'st-1', inputResponses: { name: { action: 'accept', content: { name: 'Ada' } } } });
    } finally {
      await client.close();
    }
  });

  it('a client that cannot be asked gets a clear error', async () => {
    const client = await connect(`${gw.url}/mcp`, {});
    try {
      await expect(client.callTool({ name: 'modern__ask_name', arguments: {} })).rejects.toThrow(/Elicitation required|needs input from the client/);
    } finally {
      await client.close();
    }
  });

  it('progress and (after logging/setLevel) log messages of a call reach the SDK client', async () => {
    const client = await connect(`${gw.url}/mcp`);
    try {
      const seen: Progress[] = [];
      const counted = await client.callTool({ name: 'modern__count', arguments: {} }, undefined, { onprogress: (p) => seen.push(p) });
      expect(textOf(counted)).toBe('count done');
      expect(seen.map((p) => p.progress)).toEqual([1, 2]);
      const logs: unknown[] = [];
      client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
        logs.push(n.params);
      });
      await client.callTool({ name: 'modern__chatty', arguments: {} });
      expect(logs).toEqual([]);
      await client.setLoggingLevel('info');
      await client.callTool({ name: 'modern__chatty', arguments: {} });
      expect(logs).toEqual([{ level: 'info', logger: 'modern__chatter', data: 'level info' }]);
    } finally {
      await client.close();
    }
  });

  it("list changes of the server (its subscriptions/listen stream) reach the SDK client's session", async () => {
    const client = await connect(`${gw.url}/mcp`);
    try {
      let changed = 0;
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
        changed++;
      });
      await eventually(() => tools.received.some((r) => r.body?.method === 'subscriptions/listen'), 5000, 'the listen stream');
      tools.changeTools('fresh');
      await eventually(() => changed >= 1, 5000, 'tools/list_changed');
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('modern__fresh');
    } finally {
      await client.close();
    }
  });

  it('a 2026-07-28 client gets the input_required result as it is, and its retry goes to the server', async () => {
    const meta = { 'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } };
    const headers = { 'mcp-protocol-version': V, 'mcp-method': 'tools/call', 'mcp-name': 'modern__ask_name', 'x-api-key': KEY };
    const first = await rawPost(`${gw.url}/mcp`, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'modern__ask_name', arguments: {}, _meta: meta } }, headers);
    expect(first.json.result).toMatchObject({ resultType: 'input_required', requestState: 'st-1', inputRequests: { name: { method: 'elicitation/create' } } });
    const second = await rawPost(
      `${gw.url}/mcp`,
      {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'modern__ask_name', arguments: {}, inputResponses: { name: { action: 'accept', content: { name: 'Grace' } } }, requestState: 'st-1', _meta: meta },
      },
      headers,
    );
    expect(second.json.result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'hello Grace' }] });
  });
});
