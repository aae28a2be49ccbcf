import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { BUDGET_LEDGER } from '../../../src/features/governance/budgets/budgets-capability.js';
import { PRICE_TABLE } from '../../../src/features/governance/governance-services.js';
import { USAGE_LEDGER } from '../../../src/features/governance/metering/metering-services.js';
import { costOf } from '../../../src/features/governance/prices/cost.js';
import { usageClasses } from '../../../src/features/governance/prices/usage-classes.js';
import { STORE } from '../../../src/kernel/store/store-capability.js';
import { FakeUpstream } from '../../helpers/fake-upstream.js';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';

const KEY = 'cfg-provider-batches-key-0123456789abcdef';
const USAGE = [
  { prompt_tokens: 1200, completion_tokens: 300, total_tokens: 1500 },
  { prompt_tokens: 800, completion_tokens: 100, total_tokens: 900 },
];
const OUTPUT = `${USAGE.map((usage, i) =>
  JSON.stringify({
    id: `batch_req_${i}`,
    custom_id: `line-${i}`,
    response: { status_code: 200, request_id: `req_${i}`, body: { id: `chatcmpl-${i}`, object: 'chat.completion', model: 'gpt-4o-mini', choices: [], usage } },
    error: null,
  }),
).join('\n')}\n`;

/** Batches the provider runs: billed per line of the output file at the batch price once they are completed. */
describe('provider-run batches billed per line when they finish', () => {
  let upstream: FakeUpstream;
  let gw: TestGateway;
  const batch = (status: string) => ({
    id: 'batch_provider_1',
    object: 'batch',
    endpoint: '/v1/chat/completions',
    status,
    input_file_id: 'file-in',
    output_file_id: status === 'completed' ? 'file-out' : null,
  });
  const retrieve = () =>
    fetch(`${gw.url}/v1/batches/batch_provider_1`, { headers: { 'x-gateway-provider': 'openai', authorization: 'Bearer sk-caller-openai', 'x-gateway-token': KEY } });

  beforeAll(async () => {
    upstream = await new FakeUpstream().start();
    upstream.on('GET /v1/files/file-out/content', { chunks: [OUTPUT], headers: { 'content-type': 'application/octet-stream' } });
    gw = await startGateway({
      logging: { level: 'warn' },
      providers: { openai: { baseUrl: `${upstream.url}/v1` } },
      auth: { apiKeys: [{ key: KEY, user: 'ann@example.com', team: 'search' }] },
      budgets: { team: { search: { limit_usd: 100, window: { period: 'month' } } } },
    });
  });
  afterAll(async () => {
    await gw?.close();
    await upstream?.stop();
  });

  it('bills nothing while the batch runs; once completed, one row per line at the batch price on the key’s budgets, once', async () => {
    const ledger = gw.gateway.services.require(BUDGET_LEDGER);
    const budget = { id: 'team:search:0', scope: 'team' as const, subject: 'search', budget: { limit_usd: 100, window: { period: 'month' as const } } };
    const spent = async () => (await ledger.spent([budget])).get(budget.id)!.micros;
    const rows = async () => {
      await gw.gateway.services.require(USAGE_LEDGER).flush();
      return gw.gateway.services.require(STORE).query<any>("SELECT * FROM gateway_usage WHERE route = 'batch: /v1/chat/completions' ORDER BY request_id");
    };

    upstream.on('GET /v1/batches/batch_provider_1', { json: batch('in_progress') });
    expect((await retrieve()).status).toBe(200);
    await new Promise((r) => setTimeout(r, 200));
    expect(upstream.received('GET /v1/files/file-out/content')).toHaveLength(0);
    expect(await spent()).toBe(0);

    upstream.on('GET /v1/batches/batch_provider_1', { json: batch('completed') });
    expect((await retrieve()).status).toBe(200);
    const price = gw.gateway.services.require(PRICE_TABLE).lookup('openai', 'gpt-4o-mini')!;
    const costs = USAGE.map((u) => costOf(price, usageClasses(u), { batch: true })!.micros);
    expect(costs[0]).toBeLessThan(costOf(price, usageClasses(USAGE[0]))!.micros);
    const total = costs[0]! + costs[1]!;
    await vi.waitFor(async () => expect(await spent()).toBe(total), { timeout: 5000, interval: 50 });
    const billed = await rows();
    expect(billed.map((r) => [r.request_id, Number(r.cost_micros), r.input_tokens, r.output_tokens])).toEqual([
      ['batch_provider_1:line-0', costs[0], 1200, 300],
      ['batch_provider_1:line-1', costs[1], 800, 100],
    ]);
    expect(billed[0]).toMatchObject({ user_id: 'ann@example.com', team: 'search', provider: 'openai', model: 'gpt-4o-mini', status: 200 });
    // The output file was read with the batch's own key.
    expect(upstream.received('GET /v1/files/file-out/content')[0]!.headers.authorization).toBe('Bearer sk-caller-openai');

    // Retrieved again: billed once.
    expect((await retrieve()).status).toBe(200);
    await new Promise((r) => setTimeout(r, 300));
    expect(upstream.received('GET /v1/files/file-out/content')).toHaveLength(1);
    expect(await spent()).toBe(total);
    expect(await rows()).toHaveLength(2);
  });
});
