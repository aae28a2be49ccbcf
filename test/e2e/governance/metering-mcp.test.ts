import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { BUDGET_LEDGER } from '../../../src/features/governance/budgets/budgets-capability.js';
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
      budgets: { team: { search: { limit_usd: 0.005, window: { period: 'month' } } } },
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

  it('charges priced calls to the key’s budgets (reserve, then settle at the price) and refuses one that does not fit with budget_exceeded', async () => {
    const ledger = gw.gateway.services.require(BUDGET_LEDGER);
    const budget = { id: 'team:search:0', scope: 'team' as const, subject: 'search', budget: { limit_usd: 0.005, window: { period: 'month' as const } } };
    const spent = async () => (await ledger.spent([budget])).get(budget.id)!.micros;
    await vi.waitFor(async () => expect(await spent()).toBe(2000));
    // Through the aggregated endpoint (server__tool names): 4,000 of 5,000 µ$ spent then.
    const all = await connectClient(`${gw.url}/mcp`, { 'x-api-key': KEY });
    try {
      expect(textOf(await all.callTool({ name: 'tools__echo', arguments: { text: 'again' } }))).toBe('echo: again');
    } finally {
      await all.close();
    }
    await vi.waitFor(async () => expect(await spent()).toBe(4000));
    const pinned = await connectClient(`${gw.url}/mcp/tools`, { 'x-api-key': KEY });
    try {
      const refused = await pinned.callTool({ name: 'echo', arguments: { text: 'one too many' } }).then(
        () => undefined,
        (err: Error) => err,
      );
      expect(refused?.message).toMatch(/budget/);
      // A free tool still runs: nothing to reserve.
      await pinned.callTool({ name: 'env', arguments: {} });
    } finally {
      await pinned.close();
    }
    expect(await spent()).toBe(4000);
    await gw.gateway.services.require(USAGE_LEDGER).flush();
    const rows = await gw.gateway.services.require(STORE).query<any>("SELECT * FROM gateway_usage WHERE route = '/mcp' AND model = 'echo'");
    expect(rows.map((r) => Number(r.cost_micros))).toEqual([2000, 2000]);
  });

  it('a malformed price is refused when the config is read', async () => {
    await expect(startGateway({ mcpServers: { tools: { ...stdioToolServer(), toolPrices: { echo: '$2' } } } })).rejects.toThrow(/mcpServers\.tools\.toolPrices\.echo/);
  });
});
