import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';
import { connectClient, eventually, rawPost, textOf } from '../../helpers/mcp.js';

const TOOL_KEY = 'tool-key-of-the-http-error-tests-0123456789';

/**
 * A remote tool server of plain JSON answers (no sessions): `ok` answers `called ok`; `http500`
 * fails with HTTP 500, text/plain, echoing the key it was sent; the notification
 * `notifications/boom` fails the same way. Listens on `port` (0: any), and can stop and start again there.
 */
class JsonToolServer {
  private http?: HttpServer;
  port = 0;

  async start(): Promise<this> {
    const http = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (req.method !== 'POST') return void res.writeHead(405).end();
        const msg = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
        const key = String(req.headers['x-tool-key'] ?? '');
        const fail = () => res.writeHead(500, { 'content-type': 'text/plain' }).end(`internal error: key ${key}`);
        const reply = (result: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result }));
        if (msg.method === 'notifications/boom') return fail();
        if (msg.id === undefined) return void res.writeHead(202).end();
        if (msg.method === 'initialize') return reply({ protocolVersion: msg.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'json', version: '1' } });
        if (msg.method === 'tools/list')
          return reply({
            tools: [
              { name: 'ok', inputSchema: { type: 'object' } },
              { name: 'http500', inputSchema: { type: 'object' } },
            ],
          });
        if (msg.method === 'tools/call' && msg.params.name === 'http500') return fail();
        if (msg.method === 'tools/call') return reply({ content: [{ type: 'text', text: `called ${msg.params.name}` }] });
        return reply({});
      });
    });
    await new Promise<void>((resolve) => http.listen(this.port, '127.0.0.1', resolve));
    this.port = (http.address() as AddressInfo).port;
    this.http = http;
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/mcp`;
  }

  async stop(): Promise<void> {
    const http = this.http;
    this.http = undefined;
    if (!http) return;
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  }
}

const expectContractBody = (json: any, type: string, message: RegExp) => {
  expect(json).toMatchObject({ status: 'failure', error: { type, code: type } });
  expect(json.error.message).toMatch(message);
  expect(json.message).toMatch(message);
};

describe('a remote tool server’s HTTP errors and outages, on /mcp and /mcp/<server>', () => {
  let leaky: JsonToolServer;
  let flaky: JsonToolServer;
  let down: JsonToolServer;
  let gw: TestGateway;

  beforeAll(async () => {
    leaky = await new JsonToolServer().start();
    flaky = await new JsonToolServer().start();
    down = await new JsonToolServer().start();
    gw = await startGateway({
      mcpServers: {
        leaky: { url: leaky.url, headers: { 'X-Tool-Key': TOOL_KEY } },
        flaky: { url: flaky.url, startTimeout: 8000 },
        // Stays down past its (short) startTimeout.
        down: { url: down.url, startTimeout: 300 },
      },
    });
    const client = await connectClient(`${gw.url}/mcp`);
    await eventually(async () => (await client.listTools()).tools.length === 6, 10_000, 'the servers listed');
    await client.close();
  });
  afterAll(async () => {
    await gw?.close();
    await leaky?.stop();
    await flaky?.stop();
    await down?.stop();
  });

  it('/mcp/<server>: an HTTP 500 of the server is a JSON-RPC error of that call (200), naming the status, never the server’s text', async () => {
    const own = await connectClient(`${gw.url}/mcp/leaky`);
    try {
      expect(textOf(await own.callTool({ name: 'ok', arguments: {} }))).toBe('called ok');
      const err = await own.callTool({ name: 'http500', arguments: {} }).then(
        () => undefined,
        (e: Error & { code?: number }) => e,
      );
      expect(err?.code).toBe(-32004);
      expect(err?.message).toMatch(/Tool server leaky failed with HTTP 500\./);
      expect(err?.message).not.toMatch(/internal error|REDACTED/);
      // The session goes on.
      expect(textOf(await own.callTool({ name: 'ok', arguments: {} }))).toBe('called ok');
    } finally {
      await own.close();
    }
    const raw = await rawPost(`${gw.url}/mcp/leaky`, { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'http500', arguments: {} } });
    expect(raw.status).toBe(200);
    expect(raw.json).toEqual({ jsonrpc: '2.0', id: 5, error: { code: -32004, message: 'Tool server leaky failed with HTTP 500.' } });
    expect(raw.text).not.toContain(TOOL_KEY);
  });

  it('/mcp/<server>: an HTTP 500 to what holds no request (a notification) is the contract’s provider_error 502', async () => {
    const raw = await rawPost(`${gw.url}/mcp/leaky`, { jsonrpc: '2.0', method: 'notifications/boom' });
    expect(raw.status).toBe(502);
    expect(raw.headers.get('content-type')).toMatch(/application\/json/);
    expectContractBody(raw.json, 'provider_error', /^Tool server leaky failed with HTTP 500\.$/);
    expect(raw.text).not.toContain(TOOL_KEY);
    expect(raw.text).not.toContain('internal error');
  });

  it('/mcp: the same failure says the server failed with HTTP 500 (not that it is unavailable), in a session and without one', async () => {
    const client = await connectClient(`${gw.url}/mcp`);
    try {
      await expect(client.callTool({ name: 'leaky__http500', arguments: {} })).rejects.toThrow(/-32004.*Tool server leaky failed with HTTP 500\./);
    } finally {
      await client.close();
    }
    const lean = await rawPost(`${gw.url}/mcp`, { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'leaky__http500', arguments: {} } });
    expect(lean.status).toBe(200);
    expect(lean.json).toEqual({ jsonrpc: '2.0', id: 9, error: { code: -32004, message: 'Tool server leaky failed with HTTP 500.' } });
  });

  it('/mcp/<server> while the server stays down past startTimeout: the contract’s 502 for what holds no request, a JSON-RPC error of the call (200)', async () => {
    const own = await connectClient(`${gw.url}/mcp/down`);
    const sessionId = (own.transport as { sessionId?: string } | undefined)?.sessionId;
    await down.stop();
    try {
      // The first request finds the connection gone: it waits for the server (startTimeout), in vain.
      const notification = await rawPost(`${gw.url}/mcp/down`, { jsonrpc: '2.0', method: 'notifications/initialized' }, sessionId ? { 'mcp-session-id': sessionId } : {});
      expect(notification.status).toBe(502);
      expectContractBody(notification.json, 'provider_error', /^Tool server down is unavailable\.$/);
      await expect(own.callTool({ name: 'ok', arguments: {} })).rejects.toThrow(/-32004.*Tool server down is unavailable\./);
    } finally {
      await own.close().catch(() => undefined);
      await down.start();
    }
  });

  it('/mcp: the first call after the server dropped waits for it to come back (startTimeout), as the calls after it do', async () => {
    const client: Client = await connectClient(`${gw.url}/mcp`);
    try {
      await eventually(() => gw.logs.records().some((r) => r.mcpServer === 'flaky' && r.msg === 'tool server connected'), 5000, 'flaky connected');
      expect(textOf(await client.callTool({ name: 'flaky__ok', arguments: {} }))).toBe('called ok');
      await flaky.stop();
      const started = Date.now();
      const call = client.callTool({ name: 'flaky__ok', arguments: {} });
      setTimeout(() => void flaky.start(), 1500);
      expect(textOf(await call)).toBe('called ok');
      expect(Date.now() - started).toBeGreaterThanOrEqual(1400);
    } finally {
      await client.close();
    }
  });
});
