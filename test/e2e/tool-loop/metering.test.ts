/**
 * A tool loop is charged like any request through the existing meter: the answer's usage is the
 * sum of every model call of the loop (one ledger row for the request), and each tool call is a
 * row of its own at the tool's price (mcpServers.<name>.toolPrices), as on /mcp.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { USAGE_LEDGER } from '../../../src/features/governance/metering/metering-services.js';
import { STORE } from '../../../src/kernel/store/store-capability.js';
import type { FakeUpstream } from '../../helpers/fake-upstream.js';
import type { TestGateway } from '../../helpers/start-gateway.js';
import { startLoopGateway, type LoopGateway } from './loop-gateway.js';
import { MCP_TOOL, plan } from './fake-models.js';

const KEY = 'cfg-tool-loop-metering-key-0123456789';

describe('tool loops are metered', () => {
  let gw: TestGateway;

  let loop: LoopGateway;

  beforeAll(async () => {
    loop = await startLoopGateway(({ remote }) => ({
      auth: {
        enabled: true,
        type: 'api-key',
        providerRoutes: true,
        adminToken: 'admin-token-0123456789abcdef0123456789',
        apiKeys: [{ key: KEY, user: 'ann', team: 'search', scopes: ['mcp:read', 'mcp:write'] }],
      },
      mcpServers: { remote: { url: remote.url, toolPrices: { echo: '0.002' } } },
    }));
    ({ gw } = loop);
  });
  afterAll(() => loop?.close());

  it('whole and streamed, on /v1/responses and chat: the request row has the tokens of both model calls; the tool call has its own row', async () => {
    plan.tool = 'echo';
    plan.args = { text: 'metered' };
    const client = new OpenAI({
      baseURL: `${gw.url}/v1`,
      apiKey: 'sk-provider-key-1',
      defaultHeaders: { 'x-gateway-provider': 'deepseek', 'x-gateway-token': KEY },
      maxRetries: 0,
    });
    await client.responses.create({ model: 'deepseek-chat', input: 'Echo', tools: [MCP_TOOL] });
    await client.responses.stream({ model: 'deepseek-chat', input: 'Echo', tools: [MCP_TOOL] }).finalResponse();
    const stream = await client.chat.completions.create({
      model: 'deepseek-chat',
      messages: [{ role: 'user', content: 'Echo' }],
      tools: [{ type: 'mcp', server_label: 'remote' } as any],
      stream: true,
    });
    for await (const chunk of stream) expect(chunk.usage ?? undefined).toBeUndefined(); // the caller did not ask for usage
    await gw.gateway.services.require(USAGE_LEDGER).flush();
    const rows = await gw.gateway.services.require(STORE).query<any>('SELECT * FROM gateway_usage ORDER BY at');
    const model = rows.filter((r) => r.route !== '/mcp');
    expect(model.map((r) => [r.route, Number(r.input_tokens), Number(r.output_tokens), r.user_id])).toEqual([
      ['POST /v1/responses', 20, 10, 'ann'],
      ['POST /v1/responses', 20, 10, 'ann'],
      ['POST /v1/chat/completions', 20, 10, 'ann'],
    ]);
    const tools = rows.filter((r) => r.route === '/mcp');
    expect(tools.map((r) => [r.model, Number(r.cost_micros), r.user_id])).toEqual([
      ['echo', 2000, 'ann'],
      ['echo', 2000, 'ann'],
      ['echo', 2000, 'ann'],
    ]);
  });
});

describe('a budget used up mid-loop', () => {
  const TEAM_KEY = 'cfg-tool-loop-budget-key-0123456789ab';
  let fake: FakeUpstream;
  let gw: TestGateway;

  let loop: LoopGateway;

  beforeAll(async () => {
    loop = await startLoopGateway(() => ({
      auth: {
        enabled: true,
        type: 'api-key',
        providerRoutes: true,
        adminToken: 'admin-token-0123456789abcdef0123456789',
        apiKeys: [{ key: TEAM_KEY, user: 'bob', team: 'search', scopes: ['mcp:read', 'mcp:write'] }],
      },
      tenants: { teams: { search: {} } },
      budgets: { team: { search: { limit_usd: 0.05, window: { period: 'month' } } } },
    }));
    ({ fake, gw } = loop);
  });
  afterAll(async () => {
    await loop?.close();
    plan.usage = undefined;
  });

  it('ends the loop with the answer so far (incomplete, budget_exhausted): no further model call, and the spend is billed', async () => {
    plan.tool = 'echo';
    plan.args = { text: 'costly' };
    // deepseek-v4-pro: 20k prompt + 10k completion tokens cost about $0.066, past the $0.05 budget
    plan.usage = { prompt_tokens: 20_000, completion_tokens: 10_000, total_tokens: 30_000 };
    const client = new OpenAI({
      baseURL: `${gw.url}/v1`,
      apiKey: 'sk-provider-key-1',
      defaultHeaders: { 'x-gateway-provider': 'deepseek', 'x-gateway-token': TEAM_KEY },
      maxRetries: 0,
    });
    const before = fake.received('POST /chat/completions').length;
    const response = await client.responses.create({ model: 'deepseek-v4-pro', input: 'Echo', tools: [MCP_TOOL], max_output_tokens: 100 });
    expect(response.status).toBe('incomplete');
    expect(response.incomplete_details).toEqual({ reason: 'budget_exhausted' });
    expect(response.output.map((i) => i.type)).toEqual(['mcp_list_tools', 'mcp_call']);
    expect(fake.received('POST /chat/completions').length - before).toBe(1);
    await gw.gateway.services.require(USAGE_LEDGER).flush();
    const rows = await gw.gateway.services.require(STORE).query<any>("SELECT * FROM gateway_usage WHERE route = 'POST /v1/responses'");
    expect(Number(rows.at(-1).cost_micros)).toBeGreaterThan(50_000);
    // the budget is spent: the next request is refused before any model call
    await expect(client.responses.create({ model: 'deepseek-v4-pro', input: 'Echo', tools: [MCP_TOOL], max_output_tokens: 100 })).rejects.toMatchObject({ status: 429 });
  });
});
