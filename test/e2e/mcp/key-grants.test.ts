import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';
import { HttpToolServer } from '../../helpers/http-tool-server.js';
import { connectClient, rawPost, stdioToolServer, textOf } from '../../helpers/mcp.js';

const ADMIN = 'admin-token-of-the-grant-tests-0123456789';

const V = '2026-07-28';
/** A 2026-07-28 request (no session): version in _meta and headers, Mcp-Method / Mcp-Name mirrored. */
function modern(method: string, params: Record<string, unknown> = {}) {
  const headers: Record<string, string> = { 'mcp-protocol-version': V, 'mcp-method': method };
  if (typeof params.name === 'string') headers['mcp-name'] = params.name;
  const meta = {
    'io.modelcontextprotocol/protocolVersion': V,
    'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  return { body: { jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: meta } }, headers };
}

/**
 * Contract §8: the `mcp` field of a gateway key (servers, tools) decides which tool servers and
 * tools its holder sees in lists and may call, on every path: /mcp (sessions, session-less
 * calls, the 2026-07-28 revision) and /mcp/<server> (the relays of remote and process servers).
 */
describe('grants from gateway keys (the key’s mcp field)', () => {
  let remote: HttpToolServer;
  let gw: TestGateway;
  const keys = { remoteOnly: '', twoTools: '', everything: '', readOnly: '' };

  async function issue(body: Record<string, unknown>): Promise<string> {
    const res = await fetch(`${gw.url}/v1/auth/tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(201);
    return ((await res.json()) as { token: string }).token;
  }
  const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

  beforeAll(async () => {
    remote = await new HttpToolServer().start();
    gw = await startGateway({
      auth: { enabled: true, type: 'bearer', adminToken: ADMIN },
      mcpServers: { remote: { url: remote.url }, local: stdioToolServer() },
    });
    keys.remoteOnly = await issue({ user: 'rita@example.com', mcp: { servers: ['remote'] } });
    keys.twoTools = await issue({ user: 'tom@example.com', mcp: { tools: ['remote__echo', 'local__echo'] } });
    keys.everything = await issue({ user: 'eve@example.com' });
    keys.readOnly = await issue({ user: 'rob@example.com', scopes: ['mcp:read'], mcp: { servers: ['remote'] } });
  });
  afterAll(async () => {
    await gw?.close();
    await remote?.stop();
  });

  it('mcp.servers: /mcp lists and calls only that server; the other server’s tools are refused with -32003', async () => {
    const client = await connectClient(`${gw.url}/mcp`, bearer(keys.remoteOnly));
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names.length).toBeGreaterThan(0);
      expect(names.every((n) => n.startsWith('remote__'))).toBe(true);
      expect(textOf(await client.callTool({ name: 'remote__echo', arguments: { text: 'hi' } }))).toBe('echo: hi');
      await expect(client.callTool({ name: 'local__echo', arguments: { text: 'no' } })).rejects.toThrow(/-32003.*may not use tool server local/);
    } finally {
      await client.close();
    }
    // /mcp/<server> of a server outside the grant is refused; of the granted one, served.
    await expect(connectClient(`${gw.url}/mcp/local`, bearer(keys.remoteOnly))).rejects.toThrow();
    const own = await connectClient(`${gw.url}/mcp/remote`, bearer(keys.remoteOnly));
    expect(textOf(await own.callTool({ name: 'add', arguments: { a: 1, b: 2 } }))).toBe('3');
    await own.close();
  });

  it('mcp.tools: only those tools are listed and callable, on /mcp and on /mcp/<server> of a remote and a process server', async () => {
    const client = await connectClient(`${gw.url}/mcp`, bearer(keys.twoTools));
    try {
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['local__echo', 'remote__echo']);
      expect(textOf(await client.callTool({ name: 'local__echo', arguments: { text: 'yo' } }))).toBe('echo: yo');
      await expect(client.callTool({ name: 'remote__add', arguments: { a: 1, b: 2 } })).rejects.toThrow(/-32003.*may not use tool remote__add/);
    } finally {
      await client.close();
    }
    for (const server of ['remote', 'local']) {
      const own = await connectClient(`${gw.url}/mcp/${server}`, bearer(keys.twoTools));
      try {
        expect((await own.listTools()).tools.map((t) => t.name)).toEqual(['echo']);
        expect(textOf(await own.callTool({ name: 'echo', arguments: { text: server } }))).toBe(`echo: ${server}`);
        await expect(own.callTool({ name: 'whoami', arguments: {} })).rejects.toThrow(/-32003.*may not use tool/);
      } finally {
        await own.close();
      }
    }
  });

  it('the same grants hold for a session-less call on /mcp and for the 2026-07-28 revision', async () => {
    const denied = await rawPost(
      `${gw.url}/mcp`,
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'remote__add', arguments: { a: 1, b: 1 } } },
      bearer(keys.twoTools),
    );
    expect(denied.json.error).toMatchObject({ code: -32003, message: 'Forbidden: the credential may not use tool remote__add.' });
    const allowed = await rawPost(
      `${gw.url}/mcp`,
      { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'remote__echo', arguments: { text: 'ok' } } },
      bearer(keys.twoTools),
    );
    expect(allowed.json.result.content[0].text).toBe('echo: ok');

    const list = modern('tools/list');
    const listed = await rawPost(`${gw.url}/mcp`, list.body, { ...list.headers, ...bearer(keys.twoTools) });
    expect((listed.json.result.tools as Array<{ name: string }>).map((t) => t.name).sort()).toEqual(['local__echo', 'remote__echo']);
    const call = modern('tools/call', { name: 'local__whoami', arguments: {} });
    const refused = await rawPost(`${gw.url}/mcp`, call.body, { ...call.headers, ...bearer(keys.twoTools) });
    expect(refused.json.error.code).toBe(-32003);
  });

  it('a key without mcp sees every server; a key without mcp:write lists its servers but calls nothing', async () => {
    const client = await connectClient(`${gw.url}/mcp`, bearer(keys.everything));
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['remote__echo', 'local__echo', 'local__whoami']));
    await client.close();

    const reader = await connectClient(`${gw.url}/mcp`, bearer(keys.readOnly));
    try {
      const seen = (await reader.listTools()).tools.map((t) => t.name);
      expect(seen).toContain('remote__echo');
      expect(seen.some((n) => n.startsWith('local__'))).toBe(false);
      await expect(reader.callTool({ name: 'remote__echo', arguments: { text: 'x' } })).rejects.toThrow(/-32003.*mcp:write/);
    } finally {
      await reader.close();
    }
  });

  it('every refusal is audited with the key that asked', () => {
    const denied = gw.logs.records().filter((r) => r.audit === 'mcp' && r.allowed === false && r.who === 'tom@example.com');
    expect(denied.some((r) => r.method === 'tools/call' && r.server === 'remote' && r.name === 'add')).toBe(true);
    expect(denied.every((r) => r.credential.startsWith('token:tok_'))).toBe(true);
  });
});
