import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CreateMessageRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { freePort, spawnGateway, waitForHealth, type GatewayProcess } from '../../helpers/built-gateway.js';
import { logRecords } from '../../helpers/npm-start.js';
import { startHttpToolServer } from '../../helpers/conformance-suite.js';
import { textOf } from '../../helpers/mcp.js';

const KEY = 'workers-mcp-key-0123456789';

/** Every request on a connection of its own, so the cluster hands them to its workers in turn. */
const freshConnections: FetchLike = (input, init) => {
  const headers = new Headers(init?.headers);
  headers.set('connection', 'close');
  return fetch(input, { ...init, headers });
};

/** `server.workers: 2` on the embedded SQLite store: one MCP session is served by both workers. */
describe('MCP sessions across the workers of a cluster', { timeout: 180_000 }, () => {
  let dir: string;
  let tools: Awaited<ReturnType<typeof startHttpToolServer>>;
  let proc: GatewayProcess | undefined;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gw-workers-mcp-'));
    tools = await startHttpToolServer();
  });
  afterAll(async () => {
    proc?.kill();
    await tools?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a client that keeps a session is served by whichever worker its connection lands on', async () => {
    const config = join(dir, 'gateway.json');
    writeFileSync(
      config,
      JSON.stringify({
        server: { host: '127.0.0.1', workers: 2 },
        auth: { enabled: true, type: 'api-key', apiKeys: [{ key: KEY, user: 'roamer@example.com', scopes: ['mcp:read', 'mcp:write'] }] },
        mcpServers: { remote: { url: tools.url } },
      }),
    );
    const port = await freePort();
    proc = spawnGateway(['--config', config], { env: { GATEWAY_PORT: String(port), GATEWAY_DATA_DIR: join(dir, 'data') } });
    const url = `http://127.0.0.1:${port}`;
    await waitForHealth(url, proc, 60_000);
    // /health answers once one worker listens; the start-up line comes once both do.
    const up = Date.now() + 60_000;
    while (!logRecords(proc).some((r) => r.msg === 'gateway listening') && Date.now() < up) await new Promise((r) => setTimeout(r, 25));
    expect(logRecords(proc).find((r) => r.msg === 'gateway listening')?.workers).toHaveLength(2);

    const client = new Client({ name: 'cluster-client', version: '1.0.0' }, { capabilities: { sampling: {} } });
    client.setRequestHandler(CreateMessageRequestSchema, async () => ({ role: 'assistant', content: { type: 'text', text: 'from the client' }, model: 'm' }));
    const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp/remote`), { fetch: freshConnections, requestInit: { headers: { 'x-api-key': KEY } } });
    await client.connect(transport);
    expect(transport.sessionId).toBeTruthy();
    // Both workers serve requests of that one session, and none is refused (log lines reach stdout within 250 ms). Each worker
    // accepts on the shared socket, so the kernel picks the worker: call until both have served (at most 64 calls).
    const servedBy = () =>
      new Set(
        logRecords(proc!)
          .filter((r) => r.msg === 'request' && r.route === 'POST /mcp/{server}')
          .map((r) => r.pid),
      );
    for (let round = 0; round < 8 && (round === 0 || servedBy().size < 2); round++) {
      for (let i = 0; i < 8; i++) expect(textOf(await client.callTool({ name: 'test_simple_text', arguments: {} }))).toBe('This is a simple text response for testing.');
      const by = Date.now() + 500;
      while (servedBy().size < 2 && Date.now() < by) await new Promise((r) => setTimeout(r, 50));
    }
    expect(textOf(await client.callTool({ name: 'test_sampling', arguments: { prompt: 'p' } }))).toBe('LLM response: from the client');
    await client.close();
    const by = Date.now() + 2000;
    while (logRecords(proc).filter((r) => r.msg === 'request' && r.route === 'POST /mcp/{server}').length < 3 && Date.now() < by) await new Promise((r) => setTimeout(r, 50));
    const served = logRecords(proc).filter((r) => r.msg === 'request' && r.route === 'POST /mcp/{server}');
    expect(served.every((r) => r.status === 200 || r.status === 202)).toBe(true);
    expect(new Set(served.map((r) => r.pid)).size).toBe(2);
  });
});
