import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { alternating, dropSharedState, sharedStoreConfig } from '../../helpers/shared-stores.js';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';
import { startHttpToolServer } from '../../helpers/conformance-suite.js';
import { eventually, textOf } from '../../helpers/mcp.js';

const KEY = 'two-instances-key-0123456789';

describe.each(['redis', 'postgres'] as const)('MCP sessions on any instance (%s shared): every request of one client alternates between two gateways', (shared) => {
  let tools: Awaited<ReturnType<typeof startHttpToolServer>>;
  let a: TestGateway;
  let b: TestGateway;
  let alone: TestGateway;
  const prefix = `gw-test-${randomUUID()}:`;
  const schema = `gw_mcp_${randomUUID().replace(/-/g, '').slice(0, 12)}`;

  beforeAll(async () => {
    tools = await startHttpToolServer();
    const config = (share: boolean) => ({
      logging: { level: 'warn' },
      ...(share ? sharedStoreConfig(shared, prefix, schema) : {}),
      auth: { enabled: true, type: 'api-key', apiKeys: [{ key: KEY, user: 'roamer@example.com', scopes: ['mcp:read', 'mcp:write'] }] },
      mcpServers: { remote: { url: tools.url } },
    });
    [a, b, alone] = await Promise.all([startGateway(config(true)), startGateway(config(true)), startGateway(config(false))]);
  }, 60_000);

  afterAll(async () => {
    await Promise.all([a?.close(), b?.close(), alone?.close()]);
    await tools?.stop();
    await dropSharedState(shared, prefix, schema);
  });

  it('serves one session from both instances: calls, the server stream, notifications, server-to-client requests', async () => {
    const seen: string[] = [];
    const client = new Client({ name: 'roaming-client', version: '1.0.0' }, { capabilities: { sampling: {} } });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${a.url}/mcp/remote`), { fetch: alternating([a.url, b.url], seen), requestInit: { headers: { 'x-api-key': KEY } } }),
    );
    const logs: string[] = [];
    const updates: string[] = [];
    let listChanged = 0;
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(String(n.params.data)));
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updates.push(n.params.uri));
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void listChanged++);
    client.setRequestHandler(CreateMessageRequestSchema, async () => ({ role: 'assistant', content: { type: 'text', text: 'answered on either' }, model: 'm' }));

    for (let i = 0; i < 6; i++) expect(textOf(await client.callTool({ name: 'test_simple_text', arguments: {} }))).toBe('This is a simple text response for testing.');
    await client.setLoggingLevel('info');
    await client.callTool({ name: 'test_tool_with_logging', arguments: {} });
    expect(logs).toHaveLength(3);
    await client.subscribeResource({ uri: 'test://watched-resource' });
    await client.callTool({ name: 'update_watched', arguments: {} });
    await client.callTool({ name: 'change_tools', arguments: {} });
    // Both arrive on the server stream (GET), opened on whichever instance its request went to.
    await eventually(() => updates.length === 1 && listChanged === 1, 5000, 'resources/updated and tools/list_changed');
    expect(textOf(await client.callTool({ name: 'test_sampling', arguments: { prompt: 'p' } }))).toBe('LLM response: answered on either');

    const ports = new Set(seen.map((s) => s.split(' ')[1]));
    expect(ports).toEqual(new Set([new URL(a.url).port, new URL(b.url).port]));
    expect(seen.filter((s) => s.startsWith('POST')).length).toBeGreaterThan(10);
    await client.close();
  });

  it('an instance that does not share the store does not know the session (404)', async () => {
    const client = new Client({ name: 'c', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${a.url}/mcp/remote`), { requestInit: { headers: { 'x-api-key': KEY } } });
    await client.connect(transport);
    const res = await fetch(`${alone.url}/mcp/remote`, {
      method: 'POST',
      headers: {
        'x-api-key': KEY,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': transport.sessionId!,
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
    });
    expect(res.status).toBe(404);
    const onB = await fetch(`${b.url}/mcp/remote`, {
      method: 'POST',
      headers: {
        'x-api-key': KEY,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': transport.sessionId!,
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
    });
    expect(onB.status).toBe(200);
    await client.close();
  });
});
