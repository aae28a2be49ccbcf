import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';
import { startHttpToolServer, stdioToolServerEntry } from '../../helpers/conformance-suite.js';

const KEY = 'unknown-session-key-0123456789';
const OTHER = 'unknown-session-other-0123456789';

/** The contract's error body of an unknown session (README: errors before the MCP layer). */
const NOT_FOUND = { status: 'failure', message: expect.any(String), error: { type: 'invalid_request_error', code: 'not_found', param: 'Mcp-Session-Id' } };

async function send(url: string, method: string, sessionId: string | undefined, key = KEY) {
  const res = await fetch(url, {
    method,
    headers: {
      'x-api-key': key,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
      ...(sessionId ? { 'mcp-session-id': sessionId } : {}),
    },
    ...(method === 'POST' ? { body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' }) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: (res.headers.get('content-type') ?? '').includes('application/json') ? (JSON.parse(text) as unknown) : text };
}

/** An unknown, forged, ended or another caller's session id: 404 with the contract's body on /mcp and every /mcp/<server>. */
describe('unknown MCP sessions', () => {
  let tools: Awaited<ReturnType<typeof startHttpToolServer>>;
  let gw: TestGateway;
  const sessions: Record<string, string> = {};

  beforeAll(async () => {
    tools = await startHttpToolServer();
    gw = await startGateway({
      logging: { level: 'warn' },
      auth: {
        enabled: true,
        type: 'api-key',
        apiKeys: [
          { key: KEY, user: 'one@example.com', scopes: ['mcp:read', 'mcp:write'] },
          { key: OTHER, user: 'two@example.com', scopes: ['mcp:read', 'mcp:write'] },
        ],
      },
      mcpServers: { remote: { url: tools.url }, proc: stdioToolServerEntry() },
    });
    // A real session on each endpoint, for the cases of another caller's id and an ended one.
    for (const path of ['mcp', 'mcp/remote', 'mcp/proc']) {
      const transport = new StreamableHTTPClientTransport(new URL(`${gw.url}/${path}`), { requestInit: { headers: { 'x-api-key': KEY } } });
      const client = new Client({ name: 'unknown-session-test', version: '1.0.0' });
      await client.connect(transport);
      sessions[path] = transport.sessionId!;
    }
  }, 60_000);

  afterAll(async () => {
    await gw?.close();
    await tools?.stop();
  });

  for (const path of ['mcp', 'mcp/remote', 'mcp/proc']) {
    it(`/${path}: a made-up id, a forged one of the right shape, another caller's and another endpoint's get 404 with the contract's body`, async () => {
      const url = `${gw.url}/${path}`;
      const own = sessions[path]!;
      const elsewhere = sessions[path === 'mcp/proc' ? 'mcp/remote' : 'mcp/proc']!;
      const forged = `${own.slice(0, -4)}${own.endsWith('AAAA') ? 'BBBB' : 'AAAA'}`;
      for (const method of ['POST', 'GET', 'DELETE']) {
        for (const id of ['no-such-session', forged, elsewhere]) {
          const res = await send(url, method, id);
          expect({ method, id, ...res }).toMatchObject({ method, id, status: 404, body: NOT_FOUND });
        }
        const stolen = await send(url, method, own, OTHER);
        expect({ method, ...stolen }).toMatchObject({ method, status: 404, body: NOT_FOUND });
      }
      // The session itself still serves its caller, and once ended its id is unknown too.
      expect((await send(url, 'POST', own)).status).toBe(200);
      expect((await send(url, 'DELETE', own)).status).toBe(200);
      expect(await send(url, 'POST', own)).toMatchObject({ status: 404, body: NOT_FOUND });
    });
  }

  it('GET or DELETE without a session id is 400 with the contract body on /mcp and /mcp/<server>', async () => {
    for (const path of ['mcp', 'mcp/remote', 'mcp/proc']) {
      for (const method of ['GET', 'DELETE']) {
        const res = await send(`${gw.url}/${path}`, method, undefined);
        expect({ path, method, ...res }).toMatchObject({ path, method, status: 400, body: { status: 'failure', error: { param: 'Mcp-Session-Id' } } });
      }
    }
  });
});
