import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';
import { connectClient, eventually, textOf } from '../../helpers/mcp.js';
import { MCP } from '../../../src/features/mcp/mcp-services.js';

const here = dirname(fileURLToPath(import.meta.url));
const slowServer = (delayMs: number, extra: Record<string, unknown> = {}) => ({
  command: process.execPath,
  args: [join(here, '..', '..', 'helpers', 'slow-start-tool-server.mjs')],
  env: { START_DELAY_MS: String(delayMs) },
  ...extra,
});
const connectedLines = (gw: TestGateway, server: string) => gw.logs.records().filter((r) => r.msg === 'tool server connected' && r.mcpServer === server).length;

describe('a call to a tool server that is restarting waits for it (mcpServers.<name>.startTimeout)', () => {
  let gw: TestGateway;
  let client: Client;

  beforeAll(async () => {
    gw = await startGateway({ mcpServers: { slow: slowServer(600), hasty: slowServer(600, { startTimeout: 100 }) } });
    client = await connectClient(`${gw.url}/mcp`);
  });
  afterAll(async () => {
    await client?.close();
    await gw?.close();
  });

  it('a call made while the server restarts after a crash is answered once it is back, not refused', async () => {
    expect(textOf(await client.callTool({ name: 'slow__crash', arguments: {} }))).toBe('bye');
    await eventually(() => gw.gateway.services.require(MCP).parts!.pool.get('slow')!.status === 'down', 5000, 'the crash');
    expect(textOf(await client.callTool({ name: 'slow__echo', arguments: { text: 'back' } }))).toBe('echo: back');
    expect(connectedLines(gw, 'slow')).toBe(2);
  });

  it('past startTimeout the call fails with -32004, and works once the server is back', async () => {
    expect(textOf(await client.callTool({ name: 'hasty__crash', arguments: {} }))).toBe('bye');
    await eventually(() => gw.gateway.services.require(MCP).parts!.pool.get('hasty')!.status === 'down', 5000, 'the crash');
    const refused = await client.callTool({ name: 'hasty__echo', arguments: { text: 'too soon' } }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(McpError);
    expect((refused as McpError).code).toBe(-32004);
    expect((refused as McpError).message).toMatch(/Tool server hasty is unavailable/);
    await eventually(async () => textOf(await client.callTool({ name: 'hasty__echo', arguments: { text: 'later' } })) === 'echo: later', 10_000, 'the restart');
  });
});

describe('tool servers are not restarted while the gateway drains', () => {
  let gw: TestGateway;
  let client: Client;

  beforeAll(async () => {
    gw = await startGateway({ mcpServers: { proc: slowServer(0) } });
    client = await connectClient(`${gw.url}/mcp`);
  });
  afterAll(async () => {
    await client?.close();
    await gw?.close();
  });

  it('a server that ends during the drain stays down; a call to it fails at once', async () => {
    const pool = gw.gateway.services.require(MCP).parts!.pool;
    // What the MCP capability does when shutdown begins (gateway.close() calls its drain).
    pool.drain();
    expect(textOf(await client.callTool({ name: 'proc__crash', arguments: {} }))).toBe('bye');
    await eventually(() => pool.get('proc')!.status === 'down', 5000, 'the crash');
    const refused = await client.callTool({ name: 'proc__echo', arguments: { text: 'x' } }).catch((e: unknown) => e);
    expect((refused as McpError).code).toBe(-32004);
    // Well past the first restart delay (500 ms): no second start.
    await new Promise((r) => setTimeout(r, 1500));
    expect(pool.get('proc')!.status).toBe('down');
    expect(connectedLines(gw, 'proc')).toBe(1);
  });
});
