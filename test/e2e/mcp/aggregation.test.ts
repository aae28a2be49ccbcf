import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';
import { HttpToolServer } from '../../helpers/http-tool-server.js';
import { connectClient, eventually, everythingServer, rawPost, stdioToolServer, textOf } from '../../helpers/mcp.js';

describe('/mcp aggregates process and remote tool servers (auth disabled)', () => {
  let remote: HttpToolServer;
  let gw: TestGateway;
  let client: Client;

  beforeAll(async () => {
    // In the gateway's own environment, never in a tool server's.
    process.env.GATEWAY_ADMIN_TOKEN = 'admin-token-of-the-gateway-0001-0123456789';
    remote = await new HttpToolServer().start();
    gw = await startGateway({
      mcpServers: {
        everything: everythingServer(),
        local: stdioToolServer({ TOOL_TOKEN: 'tool-secret-value-123' }),
        remote: { url: remote.url, headers: { Authorization: 'Bearer remote-server-credential' } },
        ghost: { url: 'http://127.0.0.1:9/mcp' },
      },
    });
    client = await connectClient(`${gw.url}/mcp`);
  });
  afterAll(async () => {
    delete process.env.GATEWAY_ADMIN_TOKEN;
    await client?.close();
    await gw?.close();
    await remote?.stop();
  });

  it('lists the tools of every server that is up, named server__tool', async () => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toContain('everything__echo');
    expect(names).toContain('everything__get-sum');
    expect(names).toContain('local__whoami');
    expect(names).toContain('remote__echo');
    expect(names.some((n) => n.startsWith('ghost__'))).toBe(false);
    expect(names.every((n) => /^(everything|local|remote)__/.test(n))).toBe(true);
  });

  it('calls tools on each kind of server by their prefixed names', async () => {
    expect(textOf(await client.callTool({ name: 'everything__echo', arguments: { message: 'hi' } }))).toBe('Echo: hi');
    expect(textOf(await client.callTool({ name: 'remote__add', arguments: { a: 2, b: 3 } }))).toBe('5');
    expect(textOf(await client.callTool({ name: 'local__echo', arguments: { text: 'yo' } }))).toBe('echo: yo');
  });

  it('passes structured results through unchanged', async () => {
    const result = await client.callTool({ name: 'remote__add', arguments: { a: 20, b: 22 } });
    expect(result.structuredContent).toEqual({ sum: 42 });
  });

  it('a server that is down fails its own calls with a clear error; the others keep working', async () => {
    await expect(client.callTool({ name: 'ghost__anything', arguments: {} })).rejects.toThrow(/Tool server ghost is unavailable/);
    expect(textOf(await client.callTool({ name: 'remote__echo', arguments: { text: 'still here' } }))).toBe('echo: still here');
  });

  it('unknown tool names are a JSON-RPC error', async () => {
    await expect(client.callTool({ name: 'nope', arguments: {} })).rejects.toThrow(/Unknown tool: nope/);
    await expect(client.callTool({ name: 'missing__echo', arguments: {} })).rejects.toThrow(/Unknown tool: missing__echo/);
  });

  it('lists prompts and gets them by prefixed name', async () => {
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(expect.arrayContaining(['remote__greet', 'everything__simple-prompt']));
    const prompt = await client.getPrompt({ name: 'remote__greet', arguments: { who: 'Ada' } });
    expect(prompt.messages[0]!.content).toEqual({ type: 'text', text: 'Say hello to Ada' });
  });

  it('maps resource URIs reversibly and reads them through the gateway', async () => {
    const { resources } = await client.listResources();
    const greeting = resources.find((r) => r.name === 'remote__greeting')!;
    expect(greeting.uri).toBe('mcpgw://remote/note://greeting');
    const read = await client.readResource({ uri: greeting.uri });
    expect(read.contents[0]).toMatchObject({ uri: 'mcpgw://remote/note://greeting', text: 'hello from the http tool server' });
    expect(resources.some((r) => r.uri.startsWith('mcpgw://everything/demo://'))).toBe(true);
  });

  it('maps resource templates so that an expanded template reads through the gateway', async () => {
    const { resourceTemplates } = await client.listResourceTemplates();
    const item = resourceTemplates.find((t) => t.name === 'remote__item')!;
    expect(item.uriTemplate).toBe('mcpgw://remote/note://items/{id}');
    const read = await client.readResource({ uri: item.uriTemplate.replace('{id}', '7') });
    expect(read.contents[0]).toMatchObject({ uri: 'mcpgw://remote/note://items/7', text: 'item 7' });
    const dynamic = resourceTemplates.find((t) => t.name.startsWith('everything__'))!;
    expect(dynamic.uriTemplate.startsWith('mcpgw://everything/demo://')).toBe(true);
  });

  it('/mcp/<server> exposes one server with its own names and URIs', async () => {
    const one = await connectClient(`${gw.url}/mcp/remote`);
    try {
      const { tools } = await one.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(['add', 'echo', 'leak', 'slow', 'whoami']);
      expect(textOf(await one.callTool({ name: 'echo', arguments: { text: 'direct' } }))).toBe('echo: direct');
      const read = await one.readResource({ uri: 'note://greeting' });
      expect(read.contents[0]).toMatchObject({ uri: 'note://greeting' });
    } finally {
      await one.close();
    }
  });

  it('/mcp/<unknown> is 404 in the contract shape', async () => {
    const res = await rawPost(`${gw.url}/mcp/unknown`, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(res.status).toBe(404);
    expect(res.json).toMatchObject({ status: 'failure', error: { type: 'invalid_request_error', code: 'not_found' } });
  });

  it('never shows a tool server credential: not in lists, not in errors (the server quoted it)', async () => {
    const { tools } = await client.listTools();
    expect(JSON.stringify(tools)).not.toContain('remote-server-credential');
    const err = await client.callTool({ name: 'remote__leak', arguments: {} }).catch((e: Error) => e);
    expect(String((err as Error).message)).toContain('refused');
    expect(String((err as Error).message)).not.toContain('remote-server-credential');
    expect(gw.logs.text).not.toContain('remote-server-credential');
  });

  it('sends the configured credential to the remote server, and nothing of the caller', async () => {
    const calls = remote.requests.filter((r) => r.method === 'POST');
    expect(calls.length).toBeGreaterThan(0);
    expect(calls.every((r) => r.headers.authorization === 'Bearer remote-server-credential')).toBe(true);
  });

  it('logs a process server stderr under its name, its env values masked', async () => {
    const line = await eventually(
      () => gw.logs.records().find((r) => r.mcpServer === 'local' && typeof r.stderr === 'string' && r.stderr.includes('starting')),
      5000,
      'stderr line',
    );
    expect(line.stderr).toContain('[REDACTED]');
    expect(gw.logs.text).not.toContain('tool-secret-value-123');
  });

  it('gives a process server its env and nothing of the gateway environment', async () => {
    const env = JSON.parse(textOf(await client.callTool({ name: 'local__env', arguments: {} })));
    expect(env).toEqual({ TOOL_TOKEN: 'set', GATEWAY_ADMIN_TOKEN: 'unset' });
  });

  it('relays a list-changed notification from a remote server to connected clients', async () => {
    let notified = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      notified++;
    });
    // The session's server stream (GET) is opened by the SDK client after initialize.
    await eventually(() => remote.requests.some((r) => r.method === 'GET'), 5000, 'upstream GET stream');
    remote.addTool('fresh-tool');
    await eventually(() => notified > 0, 5000, 'tools/list_changed at the client');
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('remote__fresh-tool');
  });

  it('relays list-changed from a process server too', async () => {
    let notified = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      notified++;
    });
    await client.callTool({ name: 'local__add-tool', arguments: { name: 'made-at-runtime' } });
    await eventually(() => notified > 0, 5000, 'tools/list_changed from the process server');
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('local__made-at-runtime');
  });

  it('restarts a process server that died; a call made meanwhile waits for it, and the rest work', async () => {
    await client.callTool({ name: 'local__crash', arguments: {} });
    await eventually(() => gw.logs.records().some((r) => r.mcpServer === 'local' && /connection ended/.test(r.msg)), 5000, 'restart log');
    // The first restart waits 500 ms: a call made meanwhile waits for the server (up to startTimeout).
    expect(textOf(await client.callTool({ name: 'local__echo', arguments: { text: 'waited' } }))).toBe('echo: waited');
    expect(textOf(await client.callTool({ name: 'remote__echo', arguments: { text: 'unaffected' } }))).toBe('echo: unaffected');
    await eventually(async () => textOf(await client.callTool({ name: 'local__echo', arguments: { text: 'back' } })) === 'echo: back', 10_000, 'restarted server');
    expect(gw.logs.records().filter((r) => r.mcpServer === 'local' && r.msg === 'tool server connected').length).toBeGreaterThanOrEqual(2);
  });

  it('opens a new session with a remote server that forgot it (restarted), without failing the call', async () => {
    const initsBefore = remote.requests.filter((r) => r.body?.method === 'initialize').length;
    remote.dropSessions();
    expect(textOf(await client.callTool({ name: 'remote__echo', arguments: { text: 'after restart' } }))).toBe('echo: after restart');
    expect(remote.requests.filter((r) => r.body?.method === 'initialize').length).toBe(initsBefore + 1);
  });

  it('serves a client that keeps no session (a POST without initialize or session id)', async () => {
    const res = await rawPost(
      `${gw.url}/mcp`,
      { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'remote__echo', arguments: { text: 'stateless' } } },
      { 'mcp-protocol-version': '2025-06-18' },
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('mcp-session-id')).toBeNull();
    expect(res.json).toMatchObject({ jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: 'echo: stateless' }] } });
  });

  it('ends a session on DELETE; the id then gets 404', async () => {
    const c = await connectClient(`${gw.url}/mcp`);
    const transport = c.transport as unknown as { sessionId?: string; terminateSession(): Promise<void> };
    const sid = transport.sessionId!;
    expect(sid).toBeTruthy();
    await transport.terminateSession();
    const res = await rawPost(`${gw.url}/mcp`, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' });
    expect(res.status).toBe(404);
    await c.close();
  });

  it('GET and DELETE without a session id are 400', async () => {
    const res = await fetch(`${gw.url}/mcp`, { headers: { accept: 'text/event-stream' } });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { code: 'missing_required_parameter', param: 'Mcp-Session-Id' } });
  });

  it('refuses a request whose Origin is not allowed with 403; none set means no browser origin passes', async () => {
    const res = await rawPost(`${gw.url}/mcp`, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { origin: 'https://evil.example' });
    expect(res.status).toBe(403);
    expect(res.json).toMatchObject({ status: 'failure', error: { type: 'permission_error', code: 'insufficient_permissions' } });
  });

  it('/ready reports each tool server (the one that is down makes it 503)', async () => {
    const res = await fetch(`${gw.url}/ready`);
    const body = (await res.json()) as { status: string; error: { type: string; message: string }; checks: Record<string, boolean> };
    expect(res.status).toBe(503);
    expect(body.checks).toMatchObject({ 'mcp:everything': true, 'mcp:local': true, 'mcp:remote': true, 'mcp:ghost': false });
    expect(body).toMatchObject({ status: 'failure', error: { type: 'service_unavailable', message: 'The gateway is not ready: mcp:ghost is not up.' } });
  });

  it('writes an audit line for each call', async () => {
    await client.callTool({ name: 'remote__echo', arguments: { text: 'audit me' } });
    const line = gw.logs.records().find((r) => r.audit === 'mcp' && r.method === 'tools/call' && r.server === 'remote' && r.name === 'echo');
    expect(line).toMatchObject({ who: 'anonymous', allowed: true, outcome: 'ok' });
    expect(typeof line.ms).toBe('number');
  });
});
