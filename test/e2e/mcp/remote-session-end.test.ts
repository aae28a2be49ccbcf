import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';
import { HttpToolServer } from '../../helpers/http-tool-server.js';
import { eventually, textOf } from '../../helpers/mcp.js';
import { MCP } from '../../../src/features/mcp/mcp-services.js';

const KEY = 'remote-session-end-key-0123456789';

const config = (url: string) => ({
  logging: { level: 'error' },
  auth: { enabled: true, type: 'api-key', apiKeys: [{ key: KEY, user: 'ender@example.com', scopes: ['mcp:read', 'mcp:write'] }] },
  mcpServers: { remote: { url } },
});

describe('the gateway ends its own sessions with a remote tool server with DELETE (Mcp-Session-Id), as the transport specifies', () => {
  let remote: HttpToolServer;
  let gw: TestGateway;

  beforeAll(async () => {
    remote = await new HttpToolServer().start();
    gw = await startGateway(config(remote.url));
    await eventually(async () => (await fetch(`${gw.url}/ready`)).status === 200, 15_000, 'the tool server');
  }, 60_000);

  afterAll(async () => {
    await gw?.close();
    await remote?.stop();
  });

  /** The upstream session of the gateway that carried the echo of `text`. */
  const sessionOf = (text: string) => {
    const call = remote.requests.find((r) => r.method === 'POST' && r.body?.params?.arguments?.text === text);
    const id = call?.headers['mcp-session-id'];
    expect(typeof id).toBe('string');
    return id as string;
  };
  const deleted = (id: string) => remote.requests.some((r) => r.method === 'DELETE' && r.headers['mcp-session-id'] === id);

  /** A /mcp client that gets a session of its own with the tool server (it can be asked something), and that session's id there. */
  const linked = async (base: string, mark: string) => {
    const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { 'x-api-key': KEY } } });
    const client = new Client({ name: 'linked', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    await client.connect(transport);
    expect(textOf(await client.callTool({ name: 'remote__echo', arguments: { text: mark } }))).toBe(`echo: ${mark}`);
    const upstream = sessionOf(mark);
    return { client, transport, upstream };
  };

  it("a client's DELETE ends the session's own session with the server", async () => {
    const { client, transport, upstream } = await linked(gw.url, 'by-delete');
    expect(deleted(upstream)).toBe(false);
    await transport.terminateSession();
    await eventually(() => deleted(upstream), 5000, 'the DELETE upstream');
    // Identity headers go with it as with every request of the session; its answer was the server's own.
    expect(remote.requests.find((r) => r.method === 'DELETE' && r.headers['mcp-session-id'] === upstream)?.headers['x-user-email']).toBe('ender@example.com');
    await client.close();
  });

  it('the idle sweep ends it too (a client that went away without DELETE)', async () => {
    const { client, transport, upstream } = await linked(gw.url, 'by-sweep');
    const legacy = gw.gateway.services.require(MCP).parts!.legacy as any;
    const session = legacy.sessions.get(transport.sessionId);
    await client.close();
    await eventually(() => session.active === 0, 5000, 'the server stream to close');
    expect(deleted(upstream)).toBe(false);
    session.lastSeen = 0;
    legacy.sweep();
    await eventually(() => deleted(upstream), 5000, 'the DELETE upstream');
  });

  it("shutdown ends the sessions' own sessions and the gateway's shared one", async () => {
    const other = await startGateway(config(remote.url));
    try {
      await eventually(async () => (await fetch(`${other.url}/ready`)).status === 200, 15_000, 'the tool server');
      const { client, upstream } = await linked(other.url, 'by-shutdown');
      // The shared session: the one a client that keeps no session rides on.
      const plain = await fetch(`${other.url}/mcp`, {
        method: 'POST',
        headers: { 'x-api-key': KEY, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'remote__echo', arguments: { text: 'shared-by-shutdown' } } }),
      });
      expect(await plain.text()).toContain('echo: shared-by-shutdown');
      const shared = sessionOf('shared-by-shutdown');
      expect(shared).not.toBe(upstream);
      await other.close();
      expect(deleted(upstream)).toBe(true);
      expect(deleted(shared)).toBe(true);
      await client.close().catch(() => undefined);
    } finally {
      await other.close();
    }
  }, 30_000);
});
