import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { USAGE_LEDGER } from '../../../src/features/governance/metering/metering-services.js';
import { STORE } from '../../../src/kernel/store/store-capability.js';
import { connectClient, stdioToolServer, textOf } from '../../helpers/mcp.js';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';

const KEY = 'cfg-metering-mcp-key-0123456789abcdef';

describe('tools/call is charged its per-tool price (mcpServers.<name>.toolPrices)', () => {
  let gw: TestGateway;

  beforeAll(async () => {
    gw = await startGateway({
      logging: { level: 'warn' },
      auth: { enabled: true, type: 'api-key', apiKeys: [{ key: KEY, user: 'ann@example.com', team: 'search' }] },
      mcpServers: { tools: { ...stdioToolServer(), toolPrices: { echo: '0.002' } } },
    });
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('a priced tool costs its price, an unlisted one 0; each call is a row with route /mcp', async () => {
    const client = await connectClient(`${gw.url}/mcp/tools`, { 'x-api-key': KEY });
    try {
      expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'hi' } }))).toBe('echo: hi');
      await client.callTool({ name: 'env', arguments: {} });
    } finally {
      await client.close();
    }
    await gw.gateway.services.require(USAGE_LEDGER).flush();
    const rows = await gw.gateway.services.require(STORE).query<any>("SELECT * FROM gateway_usage WHERE route = '/mcp' ORDER BY at");
    expect(rows.map((r) => [r.model, Number(r.cost_micros)])).toEqual([
      ['echo', 2000],
      ['env', 0],
    ]);
    expect(rows[0]).toMatchObject({ provider: 'mcp:tools', user_id: 'ann@example.com', team: 'search', status: 200, price_source: 'mcpServers.tools.toolPrices' });
  });

  it('a malformed price is refused when the config is read', async () => {
    await expect(startGateway({ mcpServers: { tools: { ...stdioToolServer(), toolPrices: { echo: '$2' } } } })).rejects.toThrow(/mcpServers\.tools\.toolPrices\.echo/);
  });
});
