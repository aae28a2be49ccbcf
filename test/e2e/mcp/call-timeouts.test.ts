import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';
import { HttpToolServer } from '../../helpers/http-tool-server.js';
import { startHttpToolServer, stdioToolServerEntry } from '../../helpers/conformance-suite.js';
import { eventually, textOf } from '../../helpers/mcp.js';

const KEY = 'call-timeouts-key-0123456789';
/** mcpServers.<name>.timeout of both servers. */
const TIMEOUT_MS = 2000;

/** A call sent as a raw POST on a session: the events of its answer, and how long it took. */
async function rawCall(url: string, sessionId: string | undefined, id: number, name: string, args: Record<string, unknown>) {
  const started = Date.now();
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'x-api-key': KEY,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
      ...(sessionId ? { 'mcp-session-id': sessionId } : {}),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } }),
  });
  const text = await res.text();
  const events = (res.headers.get('content-type') ?? '').includes('text/event-stream')
    ? text
        .split('\n')
        // (a resumable stream starts with an event without data)
        .filter((line) => line.startsWith('data: ') && line.length > 6)
        .map((line) => JSON.parse(line.slice(6)))
    : [JSON.parse(text)];
  return { status: res.status, events, elapsed: Date.now() - started };
}

describe("a tool server's call timeout (mcpServers.<name>.timeout) on every path: -32004, the server told to cancel, the session goes on", () => {
  let gw: TestGateway;
  let remote: Awaited<ReturnType<typeof startHttpToolServer>>;
  let json: HttpToolServer;

  beforeAll(async () => {
    remote = await startHttpToolServer();
    json = await new HttpToolServer({ jsonResponse: true }).start();
    gw = await startGateway({
      logging: { level: 'error' },
      auth: { enabled: true, type: 'api-key', apiKeys: [{ key: KEY, user: 'timer@example.com', scopes: ['mcp:read', 'mcp:write'] }] },
      mcpServers: { hang: { ...stdioToolServerEntry(), timeout: TIMEOUT_MS }, rhang: { url: remote.url, timeout: TIMEOUT_MS }, jhang: { url: json.url, timeout: TIMEOUT_MS } },
    });
    await eventually(async () => (await fetch(`${gw.url}/ready`)).status === 200, 15_000, 'the tool servers');
  }, 60_000);

  afterAll(async () => {
    await gw?.close();
    await remote?.stop();
    await json?.stop();
  });

  const connect = async (path: string, capabilities: Record<string, unknown> = {}) => {
    const transport = new StreamableHTTPClientTransport(new URL(`${gw.url}${path}`), { requestInit: { headers: { 'x-api-key': KEY } } });
    const client = new Client({ name: 'timed', version: '1.0.0' }, { capabilities });
    await client.connect(transport);
    return { client, transport };
  };

  for (const server of ['hang', 'rhang']) {
    it(`/mcp/${server}: a call its server never answers ends after the timeout with the contract's error; the server is told to cancel it; the session serves on`, async () => {
      const { client, transport } = await connect(`/mcp/${server}`);
      try {
        expect(textOf(await client.callTool({ name: 'test_slow', arguments: { ms: 0 } }))).toBe('done');
        const call = await rawCall(`${gw.url}/mcp/${server}`, transport.sessionId, 41, 'test_slow', { ms: 40_000 });
        expect(call.status).toBe(200);
        expect(call.events).toEqual([{ jsonrpc: '2.0', id: 41, error: { code: -32004, message: `Tool server ${server} did not answer in time.` } }]);
        expect(call.elapsed).toBeGreaterThanOrEqual(TIMEOUT_MS - 100);
        expect(call.elapsed).toBeLessThan(15_000);
        await eventually(async () => textOf(await client.callTool({ name: 'slow_status', arguments: {} })) === 'cancelled', 5000, 'the cancellation');
        expect(textOf(await client.callTool({ name: 'test_simple_text', arguments: {} }))).toBe('This is a simple text response for testing.');
      } finally {
        await client.close();
      }
    }, 30_000);

    it(`/mcp/${server}: progress restarts the wait, and a question to the client stretches it (its answer may take longer than the timeout)`, async () => {
      const { client } = await connect(`/mcp/${server}`, { elicitation: {} });
      try {
        const progress: Progress[] = [];
        // 4 progress notifications 0.9 s apart: 3.6 s in all, longer than the timeout.
        const slow = await client.callTool({ name: 'test_slow', arguments: { ms: 3600 } }, undefined, { onprogress: (p) => progress.push(p), timeout: 30_000 });
        expect(textOf(slow)).toBe('done');
        expect(progress).toHaveLength(4);
        // Log messages of the call (no progress) restart it the same way.
        expect(textOf(await client.callTool({ name: 'test_slow_logging', arguments: { ms: 3600 } }, undefined, { timeout: 30_000 }))).toBe('logged');
        client.setRequestHandler(ElicitRequestSchema, async () => {
          await new Promise((r) => setTimeout(r, TIMEOUT_MS + 1500));
          return { action: 'accept', content: { username: 'slow', email: 'slow@example.com' } };
        });
        const asked = await client.callTool({ name: 'test_elicitation', arguments: { message: 'take your time' } }, undefined, { timeout: 30_000 });
        expect(textOf(asked)).toBe('User response: action=accept, content={"username":"slow","email":"slow@example.com"}');
      } finally {
        await client.close();
      }
    }, 30_000);
  }

  for (const own of [false, true]) {
    it(`/mcp (${own ? "the session's own connections" : 'the shared connections'}): the same timeout and error, and the servers are told to cancel`, async () => {
      // A client that can be asked something gets connections of its own to the servers.
      const { client, transport } = await connect('/mcp', own ? { elicitation: {} } : {});
      try {
        for (const server of ['hang', 'rhang']) {
          expect(textOf(await client.callTool({ name: `${server}__test_slow`, arguments: { ms: 0 } }))).toBe('done');
          const call = await rawCall(`${gw.url}/mcp`, transport.sessionId, 51, `${server}__test_slow`, { ms: 40_000 });
          expect(call.events).toEqual([{ jsonrpc: '2.0', id: 51, error: { code: -32004, message: `Tool server ${server} did not answer in time.` } }]);
          expect(call.elapsed).toBeGreaterThanOrEqual(TIMEOUT_MS - 100);
          expect(call.elapsed).toBeLessThan(15_000);
          await eventually(async () => textOf(await client.callTool({ name: `${server}__slow_status`, arguments: {} })) === 'cancelled', 5000, 'the cancellation');
        }
        if (own) {
          // On its own connections (where the server's log messages reach the client), they restart the wait.
          for (const server of ['hang', 'rhang'])
            expect(textOf(await client.callTool({ name: `${server}__test_slow_logging`, arguments: { ms: 3600 } }, undefined, { timeout: 30_000 }))).toBe('logged');
        }
      } finally {
        await client.close();
      }
    }, 30_000);
  }

  it('a remote server that answers with whole JSON bodies, on /mcp/<server> and /mcp: no answer within the timeout gives the same error, and the server is told to cancel', async () => {
    const { client, transport } = await connect('/mcp/jhang');
    const cancelled = (id: number) => json.requests.some((r) => r.method === 'POST' && r.body?.method === 'notifications/cancelled' && r.body?.params?.requestId === id);
    try {
      for (const [url, session, id, name] of [
        [`${gw.url}/mcp/jhang`, transport.sessionId, 71, 'slow'],
        [`${gw.url}/mcp`, undefined, 72, 'jhang__slow'],
      ] as const) {
        const call = await rawCall(url, session, id, name, { ms: TIMEOUT_MS + 3000 });
        expect(call.status).toBe(200);
        expect(call.events).toEqual([{ jsonrpc: '2.0', id, error: { code: -32004, message: 'Tool server jhang did not answer in time.' } }]);
        expect(call.elapsed).toBeGreaterThanOrEqual(TIMEOUT_MS - 100);
        expect(call.elapsed).toBeLessThan(TIMEOUT_MS + 2500);
        await eventually(() => cancelled(id), 5000, 'notifications/cancelled upstream');
      }
      expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'still here' } }))).toBe('echo: still here');
    } finally {
      await client.close();
    }
  }, 30_000);

  it('/mcp, a client that keeps no session (its call relayed on the shared session): the same timeout and error, and the server is told to cancel', async () => {
    const { client } = await connect('/mcp');
    try {
      expect(textOf(await client.callTool({ name: 'rhang__test_slow', arguments: { ms: 0 } }))).toBe('done');
      const call = await rawCall(`${gw.url}/mcp`, undefined, 61, 'rhang__test_slow', { ms: 40_000 });
      expect(call.status).toBe(200);
      expect(call.events).toEqual([{ jsonrpc: '2.0', id: 61, error: { code: -32004, message: 'Tool server rhang did not answer in time.' } }]);
      expect(call.elapsed).toBeGreaterThanOrEqual(TIMEOUT_MS - 100);
      expect(call.elapsed).toBeLessThan(15_000);
      await eventually(async () => textOf(await client.callTool({ name: 'rhang__slow_status', arguments: {} })) === 'cancelled', 5000, 'the cancellation');
    } finally {
      await client.close();
    }
  }, 30_000);
});
