import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';
import { connectClient, rawPost } from '../../helpers/mcp.js';
import { MCP } from '../../../src/features/mcp/mcp-services.js';

describe('the MCP layer of a gateway without tool servers', () => {
  let gw: TestGateway;

  beforeAll(async () => {
    gw = await startGateway({ mcpServers: { off: { url: 'http://127.0.0.1:1/mcp', enabled: false } } });
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('is not loaded at start-up, and loads on the first request to /mcp, which it serves', async () => {
    const endpoint = gw.gateway.services.require(MCP);
    expect(endpoint.hasServers).toBe(false);
    expect(endpoint.parts).toBeUndefined();
    // Checked before the MCP layer: a disabled server is no server.
    const pinned = await rawPost(`${gw.url}/mcp/off`, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(pinned.status).toBe(404);
    expect(endpoint.parts).toBeUndefined();
    const client = await connectClient(`${gw.url}/mcp`);
    try {
      expect(endpoint.parts).toBeDefined();
      expect((await client.listTools()).tools).toEqual([]);
    } finally {
      await client.close();
    }
  });
});

describe('the MCP layer of a gateway with tool servers', () => {
  let gw: TestGateway;

  beforeAll(async () => {
    gw = await startGateway({ mcpServers: { down: { url: 'http://127.0.0.1:1/mcp' } } });
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('is loaded at start-up (its servers are in /ready)', async () => {
    const endpoint = gw.gateway.services.require(MCP);
    expect(endpoint.hasServers).toBe(true);
    expect(endpoint.parts?.pool.get('down')).toBeDefined();
    const ready = await fetch(`${gw.url}/ready`);
    expect(JSON.stringify(await ready.json())).toContain('mcp:down');
  });
});
