import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
  type ClientCapabilities,
  type Progress,
} from '@modelcontextprotocol/sdk/types.js';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';
import { startHttpToolServer, stdioToolServerEntry } from '../../helpers/conformance-suite.js';
import { eventually, textOf } from '../../helpers/mcp.js';

const KEY = 'aggregate-relay-key-0123456789';
const ASKING: ClientCapabilities = { sampling: {}, elicitation: {}, roots: { listChanged: true } };

async function connect(url: string, capabilities: ClientCapabilities = ASKING): Promise<Client> {
  const client = new Client({ name: 'aggregate-relay-client', version: '1.0.0' }, { capabilities });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { 'x-api-key': KEY } } }));
  return client;
}

/**
 * What a tool server and a client say to each other passes through the aggregated /mcp too
 * (names S__<name>, URIs mcpgw://S/...), for a remote and a process server: the server's
 * requests reach the client session that made the call (not another one), logging, resource
 * subscriptions, list changes, progress and cancellation.
 */
describe.each(['remote', 'proc'])('aggregated /mcp relays what %s says to the calling client', (name) => {
  let tools: Awaited<ReturnType<typeof startHttpToolServer>>;
  let gw: TestGateway;
  let url: string;
  let client: Client;
  const tool = (t: string) => `${name}__${t}`;

  beforeAll(async () => {
    tools = await startHttpToolServer();
    gw = await startGateway({
      logging: { level: 'warn' },
      auth: { enabled: true, type: 'api-key', apiKeys: [{ key: KEY, user: 'agg@example.com', team: 'tools', scopes: ['mcp:read', 'mcp:write'] }] },
      mcpServers: { remote: { url: tools.url }, proc: stdioToolServerEntry() },
    });
    await eventually(async () => (await fetch(`${gw.url}/ready`)).status === 200, 15_000, 'the tool servers');
    url = `${gw.url}/mcp`;
    client = await connect(url);
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    await gw?.close();
    await tools?.stop();
  });

  it('advertises logging and resource subscriptions in the union', () => {
    expect(client.getServerCapabilities()).toMatchObject({ logging: {}, resources: { subscribe: true, listChanged: true }, tools: { listChanged: true } });
  });

  it('relays sampling/createMessage to the calling client and returns its answer', async () => {
    let asked = '';
    client.setRequestHandler(CreateMessageRequestSchema, async (req) => {
      asked = JSON.stringify(req.params.messages);
      return { role: 'assistant', content: { type: 'text', text: 'hello from the client' }, model: 'test-model' };
    });
    const result = await client.callTool({ name: tool('test_sampling'), arguments: { prompt: 'say hi' } });
    expect(asked).toContain('say hi');
    expect(textOf(result)).toBe('LLM response: hello from the client');
  });

  it('relays elicitation/create and roots/list', async () => {
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
      expect(req.params.message).toBe('who are you?');
      return { action: 'accept', content: { username: 'ada', email: 'ada@example.com' } };
    });
    client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: 'file:///work/project', name: 'project' }] }));
    const elicited = await client.callTool({ name: tool('test_elicitation'), arguments: { message: 'who are you?' } });
    expect(textOf(elicited)).toBe('User response: action=accept, content={"username":"ada","email":"ada@example.com"}');
    const roots = await client.callTool({ name: tool('test_roots'), arguments: {} });
    expect(JSON.parse(textOf(roots))).toEqual([{ uri: 'file:///work/project', name: 'project' }]);
  });

  it("a server's request reaches the session that made the call, not another one", async () => {
    const other = await connect(url);
    try {
      const answer = (who: string) => async () => ({ role: 'assistant' as const, content: { type: 'text' as const, text: who }, model: 'm' });
      client.setRequestHandler(CreateMessageRequestSchema, answer('first'));
      other.setRequestHandler(CreateMessageRequestSchema, answer('second'));
      const [a, b] = await Promise.all([
        client.callTool({ name: tool('test_sampling'), arguments: { prompt: 'a' } }),
        other.callTool({ name: tool('test_sampling'), arguments: { prompt: 'b' } }),
      ]);
      expect(textOf(a)).toBe('LLM response: first');
      expect(textOf(b)).toBe('LLM response: second');
    } finally {
      await other.close();
    }
  });

  it('relays logging/setLevel and the log notifications of a call (logger S__<logger>), before its result', async () => {
    const logs: Array<{ logger?: string; data: unknown }> = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      logs.push({ logger: n.params.logger, data: n.params.data });
    });
    await client.setLoggingLevel('info');
    await client.callTool({ name: tool('test_tool_with_logging'), arguments: {} });
    expect(logs.map((l) => l.data)).toEqual(['Tool execution started', 'Tool processing data', 'Tool execution completed']);
    expect(new Set(logs.map((l) => l.logger))).toEqual(new Set([tool('conformance-tools')]));
    await client.setLoggingLevel('error');
    await client.callTool({ name: tool('test_tool_with_logging'), arguments: {} });
    expect(logs).toHaveLength(3);
  });

  it('relays resources/subscribe, the update notifications (mcpgw:// URIs) and unsubscribe', async () => {
    const updated: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      updated.push(n.params.uri);
    });
    const uri = `mcpgw://${name}/test://watched-resource`;
    await client.subscribeResource({ uri });
    expect(textOf(await client.callTool({ name: tool('update_watched'), arguments: {} }))).toBe('subscribers: 1');
    await eventually(() => updated.length === 1, 3000, 'resources/updated');
    expect(updated).toEqual([uri]);
    await client.unsubscribeResource({ uri });
    expect(textOf(await client.callTool({ name: tool('update_watched'), arguments: {} }))).toBe('subscribers: 0');
  });

  it("relays the session's list-changed notifications; its lists show the change", async () => {
    let changed = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changed++;
    });
    await client.callTool({ name: tool('change_tools'), arguments: {} });
    await eventually(() => changed >= 1, 3000, 'tools/list_changed');
    expect((await client.listTools()).tools.map((t) => t.name)).toContain(tool('added_1'));
  });

  it('loses no progress notification in 100 consecutive calls', async () => {
    let complete = 0;
    for (let i = 0; i < 100; i++) {
      const seen: Progress[] = [];
      await client.callTool({ name: tool('test_slow'), arguments: { ms: 0 } }, undefined, { onprogress: (p) => seen.push(p) });
      if (seen.length === 4 && seen.at(-1)!.progress === 4) complete++;
    }
    expect(complete).toBe(100);
  }, 60_000);

  it('cancels both ways: the client cancels a call, the server cancels its own request', async () => {
    const controller = new AbortController();
    const call = client.callTool({ name: tool('test_slow'), arguments: { ms: 4000 } }, undefined, { signal: controller.signal });
    setTimeout(() => controller.abort(), 300);
    await expect(call).rejects.toThrow();
    await eventually(async () => textOf(await client.callTool({ name: tool('slow_status'), arguments: {} })) === 'cancelled', 5000, 'the server to see the cancellation');

    let cancelledByServer = false;
    client.setRequestHandler(
      CreateMessageRequestSchema,
      (_req, extra) =>
        new Promise((_resolve, reject) => {
          extra.signal.addEventListener('abort', () => {
            cancelledByServer = true;
            reject(new Error('cancelled'));
          });
        }),
    );
    const result = await client.callTool({ name: tool('test_cancel_client'), arguments: {} });
    expect(textOf(result)).toMatch(/^gave up: /);
    await eventually(() => cancelledByServer, 3000, 'notifications/cancelled from the server');
  });

  it('a client that cannot be asked anything is served on the shared connection; its answer errors stay JSON-RPC errors', async () => {
    const plain = await connect(url, {});
    try {
      expect(textOf(await plain.callTool({ name: tool('test_simple_text'), arguments: {} }))).toBe('This is a simple text response for testing.');
      await expect(plain.subscribeResource({ uri: 'mcpgw://nowhere/x://y' })).rejects.toThrow(/Unknown resource/);
    } finally {
      await plain.close();
    }
  });
});

/** A call's timeout (mcpServers.<name>.timeout) does not count the time the client takes to answer the server. */
describe('aggregated /mcp: the wait for a person does not count against the call timeout', () => {
  let gw: TestGateway;
  let client: Client;

  beforeAll(async () => {
    gw = await startGateway({
      logging: { level: 'warn' },
      auth: { enabled: true, type: 'api-key', apiKeys: [{ key: KEY, user: 'agg@example.com', scopes: ['mcp:read', 'mcp:write'] }] },
      mcpServers: { proc: { ...stdioToolServerEntry(), timeout: 700 } },
    });
    await eventually(async () => (await fetch(`${gw.url}/ready`)).status === 200, 15_000, 'the tool server');
    client = await connect(`${gw.url}/mcp`);
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    await gw?.close();
  });

  it('an elicitation answered after longer than the timeout completes the call', async () => {
    client.setRequestHandler(ElicitRequestSchema, async () => {
      await new Promise((r) => setTimeout(r, 1200));
      return { action: 'accept', content: { username: 'slow', email: 'slow@example.com' } };
    });
    const result = await client.callTool({ name: 'proc__test_elicitation', arguments: { message: 'take your time' } });
    expect(textOf(result)).toBe('User response: action=accept, content={"username":"slow","email":"slow@example.com"}');
  });

  it('a tool that keeps the server busy past the timeout still times out', async () => {
    await expect(client.callTool({ name: 'proc__test_slow', arguments: { ms: 2000 } })).rejects.toThrow(/did not answer in time/);
  });
});
