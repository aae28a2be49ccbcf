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
  type Progress,
} from '@modelcontextprotocol/sdk/types.js';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';
import { startHttpToolServer, stdioToolServerEntry } from '../../helpers/conformance-suite.js';
import { eventually, rawPost, textOf } from '../../helpers/mcp.js';

const KEY = 'relay-test-key-0123456789';

/** An SDK client that can answer the server's requests (sampling, elicitation, roots). */
async function connect(url: string): Promise<Client> {
  const client = new Client({ name: 'relay-test-client', version: '1.0.0' }, { capabilities: { sampling: {}, elicitation: {}, roots: { listChanged: true } } });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { 'x-api-key': KEY } } }));
  return client;
}

/**
 * Everything MCP lets a tool server and a client say to each other passes through
 * /mcp/<server>, for a remote and a process server: the server's own identity, its requests to
 * the client and the answers, logging, progress (none lost), cancellation both ways,
 * subscriptions, list changes, completion, pagination.
 */
describe.each(['remote', 'proc'])('faithful relay at /mcp/<server> (%s)', (name) => {
  let tools: Awaited<ReturnType<typeof startHttpToolServer>>;
  let gw: TestGateway;
  let url: string;
  let client: Client;

  beforeAll(async () => {
    tools = await startHttpToolServer();
    gw = await startGateway({
      logging: { level: 'warn' },
      auth: { enabled: true, type: 'api-key', apiKeys: [{ key: KEY, user: 'relay@example.com', team: 'tools', scopes: ['mcp:read', 'mcp:write'] }] },
      mcpServers: {
        remote: { url: tools.url },
        proc: stdioToolServerEntry(),
        paged: stdioToolServerEntry(['--page-size', '5']),
      },
    });
    url = `${gw.url}/mcp/${name}`;
    client = await connect(url);
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    await gw?.close();
    await tools?.stop();
  });

  it("advertises the server's own capabilities, serverInfo and instructions", () => {
    expect(client.getServerVersion()).toMatchObject({ name: 'gateway-conformance-tools', version: '1.0.0' });
    expect(client.getServerCapabilities()).toMatchObject({ logging: {}, completions: {}, resources: { subscribe: true, listChanged: true }, tools: { listChanged: true } });
    expect(client.getInstructions()).toBe('The conformance tool server of the gateway tests.');
  });

  it('relays sampling/createMessage to the calling client and returns its answer', async () => {
    let asked = '';
    client.setRequestHandler(CreateMessageRequestSchema, async (req) => {
      asked = JSON.stringify(req.params.messages);
      return { role: 'assistant', content: { type: 'text', text: 'hello from the client' }, model: 'test-model' };
    });
    const result = await client.callTool({ name: 'test_sampling', arguments: { prompt: 'say hi' } });
    expect(asked).toContain('say hi');
    expect(textOf(result)).toBe('LLM response: hello from the client');
  });

  it('relays elicitation/create and roots/list', async () => {
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { username: 'ada', email: 'ada@example.com' } }));
    client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: 'file:///work/project', name: 'project' }] }));
    const elicited = await client.callTool({ name: 'test_elicitation', arguments: { message: 'who are you?' } });
    expect(textOf(elicited)).toBe('User response: action=accept, content={"username":"ada","email":"ada@example.com"}');
    const roots = await client.callTool({ name: 'test_roots', arguments: {} });
    expect(JSON.parse(textOf(roots))).toEqual([{ uri: 'file:///work/project', name: 'project' }]);
  });

  it('relays logging/setLevel and the log notifications of a call, before its result', async () => {
    const logs: string[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      logs.push(String(n.params.data));
    });
    await client.setLoggingLevel('info');
    await client.callTool({ name: 'test_tool_with_logging', arguments: {} });
    expect(logs).toEqual(['Tool execution started', 'Tool processing data', 'Tool execution completed']);
    await client.setLoggingLevel('error');
    await client.callTool({ name: 'test_tool_with_logging', arguments: {} });
    expect(logs).toHaveLength(3);
  });

  it('loses no progress notification in 200 consecutive calls (the last one arrives before the result)', async () => {
    let complete = 0;
    for (let i = 0; i < 200; i++) {
      const seen: Progress[] = [];
      const result = await client.callTool({ name: 'test_slow', arguments: { ms: 0 } }, undefined, { onprogress: (p) => seen.push(p) });
      expect(textOf(result)).toBe('done');
      if (seen.length === 4 && seen.at(-1)!.progress === 4) complete++;
    }
    expect(complete).toBe(200);
  }, 60_000);

  it('cancels both ways: the client cancels a call, the server cancels its own request', async () => {
    const controller = new AbortController();
    const call = client.callTool({ name: 'test_slow', arguments: { ms: 4000 } }, undefined, { signal: controller.signal });
    setTimeout(() => controller.abort(), 300);
    await expect(call).rejects.toThrow();
    await eventually(async () => textOf(await client.callTool({ name: 'slow_status', arguments: {} })) === 'cancelled', 5000, 'the server to see the cancellation');

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
    const result = await client.callTool({ name: 'test_cancel_client', arguments: {} });
    expect(textOf(result)).toMatch(/^gave up: /);
    await eventually(() => cancelledByServer, 3000, 'notifications/cancelled from the server');
  });

  it('relays resources/subscribe, the update notifications, and unsubscribe', async () => {
    const updated: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      updated.push(n.params.uri);
    });
    await client.subscribeResource({ uri: 'test://watched-resource' });
    expect(textOf(await client.callTool({ name: 'update_watched', arguments: {} }))).toBe('subscribers: 1');
    await eventually(() => updated.length === 1, 3000, 'resources/updated');
    expect(updated).toEqual(['test://watched-resource']);
    await client.unsubscribeResource({ uri: 'test://watched-resource' });
    expect(textOf(await client.callTool({ name: 'update_watched', arguments: {} }))).toBe('subscribers: 0');
  });

  it('relays list-changed notifications and completion', async () => {
    let changed = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changed++;
    });
    await client.callTool({ name: 'change_tools', arguments: {} });
    await eventually(() => changed === 1, 3000, 'tools/list_changed');
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('added_1');
    const completion = await client.complete({ ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' }, argument: { name: 'arg1', value: 'par' } });
    expect(completion.completion.values).toEqual(['paris', 'park', 'party']);
  });

  it("honours the client's cursor (pages of a paging server)", async () => {
    const paged = await connect(`${gw.url}/mcp/paged`);
    try {
      const first = await paged.listTools();
      expect(first.tools).toHaveLength(5);
      expect(first.nextCursor).toBeTruthy();
      const second = await paged.listTools({ cursor: first.nextCursor });
      expect(second.tools).toHaveLength(5);
      expect(second.tools[0]!.name).not.toBe(first.tools[0]!.name);
    } finally {
      await paged.close();
    }
  });

  it('a stateless tools/call on /mcp names the tool server__tool and maps resource URIs; a forged identity is dropped', async () => {
    const embedded = await rawPost(
      `${gw.url}/mcp`,
      { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: `${name}__test_embedded_resource`, arguments: {} } },
      { 'x-api-key': KEY },
    );
    expect(embedded.status).toBe(200);
    expect(embedded.json.result.content[0].resource.uri).toBe(`mcpgw://${name}/test://embedded-resource`);
    const simple = await rawPost(
      `${gw.url}/mcp`,
      { jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: `${name}__test_simple_text`, arguments: {} } },
      { 'x-api-key': KEY },
    );
    expect(simple.json).toEqual({ jsonrpc: '2.0', id: 8, result: { content: [{ type: 'text', text: 'This is a simple text response for testing.' }] } });
    const forged = await client.callTool({ name: 'whoami', arguments: {}, _meta: { 'io.gateway/identity': { email: 'evil@example.com' } } });
    expect(textOf(forged)).not.toContain('evil@example.com');
  });

  it("forwards the caller's identity, never its credential", async () => {
    const who = JSON.parse(textOf(await client.callTool({ name: 'whoami', arguments: {} })));
    if (name === 'proc') expect(who.meta).toMatchObject({ email: 'relay@example.com', team: 'tools' });
    else expect(who.headers).toMatchObject({ 'x-user-email': 'relay@example.com', 'x-user-team': 'tools' });
    expect(JSON.stringify(who)).not.toContain(KEY);
  });
});

/** /mcp: the union of the caller's servers, lists paged with opaque cursors, progress kept. */
describe('aggregated /mcp: capabilities union, opaque cursors, no lost progress', () => {
  let gw: TestGateway;
  let client: Client;

  beforeAll(async () => {
    gw = await startGateway({
      logging: { level: 'warn' },
      auth: { enabled: true, type: 'api-key', apiKeys: [{ key: KEY, user: 'relay@example.com', scopes: ['mcp:read', 'mcp:write'] }] },
      mcpServers: { proc: stdioToolServerEntry(['--page-size', '4']), other: stdioToolServerEntry(['--page-size', '6']) },
    });
    await eventually(async () => (await fetch(`${gw.url}/ready`)).status === 200, 15_000, 'the tool servers');
    client = await connect(`${gw.url}/mcp`);
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    await gw?.close();
  });

  it('advertises what the servers offer (prompts, resources, completions) and the gateway as itself', () => {
    expect(client.getServerCapabilities()).toMatchObject({ tools: { listChanged: true }, prompts: { listChanged: true }, resources: { listChanged: true }, completions: {} });
    expect(client.getServerVersion()?.name).toBe('ai-gateway');
  });

  it('pages with an opaque cursor until every tool of both servers was seen once', async () => {
    const names: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await client.listTools(cursor ? { cursor } : undefined);
      names.push(...page.tools.map((t) => t.name));
      cursor = page.nextCursor;
      pages++;
    } while (cursor && pages < 20);
    const direct = await connect(`${gw.url}/mcp/proc`);
    let own = 0;
    let c: string | undefined;
    do {
      const page = await direct.listTools(c ? { cursor: c } : undefined);
      own += page.tools.length;
      c = page.nextCursor;
    } while (c);
    await direct.close();
    expect(pages).toBeGreaterThan(1);
    expect(new Set(names).size).toBe(names.length);
    expect(names.filter((n) => n.startsWith('proc__'))).toHaveLength(own);
    expect(names.filter((n) => n.startsWith('other__'))).toHaveLength(own);
    await expect(client.listTools({ cursor: 'not-a-cursor' })).rejects.toThrow(/Invalid cursor/);
  });

  it('loses no progress notification in 200 consecutive calls to a process server', async () => {
    let complete = 0;
    for (let i = 0; i < 200; i++) {
      const seen: Progress[] = [];
      await client.callTool({ name: 'proc__test_slow', arguments: { ms: 0 } }, undefined, { onprogress: (p) => seen.push(p) });
      if (seen.length === 4 && seen.at(-1)!.progress === 4) complete++;
    }
    expect(complete).toBe(200);
  }, 60_000);
});
