import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';
import { HttpToolServer } from '../../helpers/http-tool-server.js';
import { connectClient, eventually, rawPost, stdioToolServer } from '../../helpers/mcp.js';

const V = '2026-07-28';
const meta = {
  'io.modelcontextprotocol/protocolVersion': V,
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** A 2026-07-28 request: version in _meta and in the headers, Mcp-Method / Mcp-Name mirrored. */
function modern(method: string, params: Record<string, unknown> = {}, id: number | string = 1) {
  const headers: Record<string, string> = { 'mcp-protocol-version': V, 'mcp-method': method };
  const name = method === 'resources/read' ? params.uri : params.name;
  if (typeof name === 'string') headers['mcp-name'] = /^[\x20-\x7e]*$/.test(name) ? name : `=?base64?${Buffer.from(name).toString('base64')}?=`;
  return { body: { jsonrpc: '2.0', id, method, params: { ...params, _meta: meta } }, headers };
}

describe('/mcp for clients of the stateless revision (2026-07-28: no initialize, no session)', () => {
  let remote: HttpToolServer;
  let gw: TestGateway;
  const post = (method: string, params?: Record<string, unknown>, extraHeaders: Record<string, string> = {}, path = '/mcp') => {
    const m = modern(method, params);
    return rawPost(`${gw.url}${path}`, m.body, { ...m.headers, ...extraHeaders });
  };

  beforeAll(async () => {
    remote = await new HttpToolServer().start();
    gw = await startGateway({ mcpServers: { remote: { url: remote.url }, local: stdioToolServer() } });
  });
  afterAll(async () => {
    await gw?.close();
    await remote?.stop();
  });

  it('server/discover names the supported versions and capabilities', async () => {
    const res = await post('server/discover');
    expect(res.status).toBe(200);
    expect(res.json.result).toMatchObject({ resultType: 'complete', supportedVersions: expect.arrayContaining([V, '2025-11-25', '2025-06-18']), capabilities: { tools: {} } });
    expect(res.headers.get('mcp-session-id')).toBeNull();
  });

  it('lists and calls without any handshake', async () => {
    const list = await post('tools/list');
    expect(list.json.result.resultType).toBe('complete');
    expect(list.json.result.cacheScope).toBe('private');
    expect(list.json.result.tools.map((t: any) => t.name)).toEqual(expect.arrayContaining(['remote__echo', 'local__echo']));
    const call = await post('tools/call', { name: 'remote__echo', arguments: { text: 'modern' } });
    expect(call.json.result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'echo: modern' }] });
    const read = await post('resources/read', { uri: 'mcpgw://remote/note://greeting' });
    expect(read.json.result.contents[0]).toMatchObject({ uri: 'mcpgw://remote/note://greeting', text: 'hello from the http tool server' });
    const prompt = await post('prompts/get', { name: 'remote__greet', arguments: { who: 'Grace' } });
    expect(prompt.json.result.messages[0].content.text).toBe('Say hello to Grace');
  });

  it('decodes a base64 Mcp-Name', async () => {
    const m = modern('tools/call', { name: 'remote__echo', arguments: { text: 'b64' } });
    const res = await rawPost(`${gw.url}/mcp`, m.body, { ...m.headers, 'mcp-name': `=?base64?${Buffer.from('remote__echo').toString('base64')}?=` });
    expect(res.json.result.content[0].text).toBe('echo: b64');
  });

  it('400 HeaderMismatch when the headers and the body disagree or a header is missing', async () => {
    const wrongName = await post('tools/call', { name: 'remote__echo', arguments: { text: 'x' } }, { 'mcp-name': 'remote__add' });
    expect(wrongName.status).toBe(400);
    expect(wrongName.json).toMatchObject({ jsonrpc: '2.0', id: 1, error: { code: -32020 } });
    const wrongMethod = await post('tools/list', {}, { 'mcp-method': 'prompts/list' });
    expect(wrongMethod.status).toBe(400);
    expect(wrongMethod.json.error.code).toBe(-32020);
    const m = modern('tools/list');
    const noMethod = await rawPost(`${gw.url}/mcp`, m.body, { 'mcp-protocol-version': V });
    expect(noMethod.json.error.code).toBe(-32020);
    const noMeta = await rawPost(`${gw.url}/mcp`, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }, m.headers);
    expect(noMeta.status).toBe(400);
    expect(noMeta.json.error.code).toBe(-32020);
  });

  it('400 UnsupportedProtocolVersionError for an unknown version, listing the supported ones', async () => {
    const res = await rawPost(
      `${gw.url}/mcp`,
      { jsonrpc: '2.0', id: 5, method: 'tools/list', params: { _meta: { ...meta, 'io.modelcontextprotocol/protocolVersion': '1900-01-01' } } },
      { 'mcp-protocol-version': '1900-01-01', 'mcp-method': 'tools/list' },
    );
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ id: 5, error: { code: -32022, data: { requested: '1900-01-01', supported: expect.arrayContaining([V]) } } });
  });

  it('404 with -32601 for a method it does not implement', async () => {
    const res = await post('tasks/list');
    expect(res.status).toBe(404);
    expect(res.json.error.code).toBe(-32601);
  });

  it('a notification is accepted with 202', async () => {
    const res = await rawPost(
      `${gw.url}/mcp`,
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } },
      { 'mcp-protocol-version': V, 'mcp-method': 'notifications/cancelled' },
    );
    expect(res.status).toBe(202);
  });

  it('subscriptions/listen streams the list changes the client opted in to', async () => {
    const m = modern('subscriptions/listen', { notifications: { toolsListChanged: true, promptsListChanged: false } }, 'sub-1');
    const res = await request(`${gw.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...m.headers },
      body: JSON.stringify(m.body),
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/event-stream');
    const events: any[] = [];
    let buffer = '';
    res.body.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      let i;
      while ((i = buffer.indexOf('\n\n')) >= 0) {
        const frame = buffer.slice(0, i);
        buffer = buffer.slice(i + 2);
        const data = frame.split('\n').find((l) => l.startsWith('data: '));
        if (data) events.push(JSON.parse(data.slice(6)));
      }
    });
    await eventually(() => events.length >= 1, 5000, 'acknowledgement');
    expect(events[0]).toMatchObject({
      method: 'notifications/subscriptions/acknowledged',
      params: { notifications: { toolsListChanged: true }, _meta: { 'io.modelcontextprotocol/subscriptionId': 'sub-1' } },
    });
    await eventually(() => remote.requests.some((r) => r.method === 'GET'), 5000, 'upstream stream');
    remote.addTool('listen-tool');
    const changed = await eventually(() => events.find((e) => e.method === 'notifications/tools/list_changed'), 5000, 'list_changed on the listen stream');
    expect(changed.params._meta['io.modelcontextprotocol/subscriptionId']).toBe('sub-1');
    res.body.destroy();
  });

  it('with no admin token configured the token operations are disabled: 403 for everyone', async () => {
    for (const headers of [{}, { authorization: 'Bearer anything-at-all-123456' }] as Record<string, string>[]) {
      const res = await fetch(`${gw.url}/v1/auth/tokens`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: '{"user":"x"}' });
      expect(res.status).toBe(403);
      expect(await res.json()).toMatchObject({ error: { type: 'permission_error', message: expect.stringMatching(/no admin token is configured/) } });
    }
    expect((await fetch(`${gw.url}/v1/auth/tokens`)).status).toBe(403);
  });

  it('GET on the endpoint with the stateless revision is refused (no server stream in this revision)', async () => {
    const res = await fetch(`${gw.url}/mcp`, { headers: { 'mcp-protocol-version': V, accept: 'text/event-stream' } });
    expect(res.status).toBe(400);
  });
});

describe('shutdown with open notification streams', () => {
  it('ends subscriptions/listen streams gracefully (their final response) and server streams at once when draining starts', async () => {
    const remote = await new HttpToolServer().start();
    const gw = await startGateway({ mcpServers: { remote: { url: remote.url } } });
    const m = modern('subscriptions/listen', { notifications: { toolsListChanged: true } }, 'sub-end');
    const res = await request(`${gw.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...m.headers },
      body: JSON.stringify(m.body),
    });
    let text = '';
    res.body.on('data', (c: Buffer) => (text += c.toString('utf8')));
    const ended = new Promise<void>((resolve) => res.body.once('end', () => resolve()));
    await eventually(() => text.includes('acknowledged'), 5000, 'acknowledgement');
    // A handshake-era session with its server stream (GET) open.
    const client = await connectClient(`${gw.url}/mcp`);
    await client.listTools();
    await gw.gateway.close(25_000);
    await ended;
    const last = JSON.parse(
      text
        .trim()
        .split('\n')
        .filter((l) => l.startsWith('data: '))
        .at(-1)!
        .slice(6),
    );
    expect(last).toMatchObject({ jsonrpc: '2.0', id: 'sub-end', result: { resultType: 'complete', _meta: { 'io.modelcontextprotocol/subscriptionId': 'sub-end' } } });
    await client.close().catch(() => undefined);
    await remote.stop();
    rmSync(gw.dataDir, { recursive: true, force: true });
  });
});
