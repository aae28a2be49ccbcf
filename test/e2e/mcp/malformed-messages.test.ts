import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';
import { connectClient, rawPost, stdioToolServer } from '../../helpers/mcp.js';

describe('malformed JSON-RPC messages on /mcp get the JSON-RPC error that names what is wrong', () => {
  let gw: TestGateway;
  let session: Record<string, string>;

  beforeAll(async () => {
    gw = await startGateway({ mcpServers: { proc: stdioToolServer() } });
    const init = await rawPost(`${gw.url}/mcp`, {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    session = { 'mcp-session-id': init.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-06-18' };
    await rawPost(`${gw.url}/mcp`, { jsonrpc: '2.0', method: 'notifications/initialized' }, session);
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('tools/call without a name: -32602 Invalid params, a short message (in a session and without one)', async () => {
    for (const headers of [session, {}]) {
      const answer = await rawPost(`${gw.url}/mcp`, { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { arguments: {} } }, headers);
      expect(answer.status).toBe(200);
      expect(answer.json).toEqual({ jsonrpc: '2.0', id: 3, error: { code: -32602, message: 'Invalid params: tools/call needs a "name" string.' } });
    }
  });

  it('a message without a method, or with params that are not an object: -32600 Invalid Request', async () => {
    for (const body of [
      { jsonrpc: '2.0', id: 4 },
      { jsonrpc: '2.0', id: 4, method: 'tools/list', params: 'x' },
    ]) {
      const answer = await rawPost(`${gw.url}/mcp`, body, session);
      expect(answer.status).toBe(400);
      expect(answer.json.id).toBe(4);
      expect(answer.json.error.code).toBe(-32600);
      expect(answer.json.error.message).toMatch(/^Invalid Request: /);
    }
  });

  it('well-formed messages are still served', async () => {
    const client = await connectClient(`${gw.url}/mcp`);
    try {
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
  });
});
