import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { USAGE_LEDGER } from '../../../src/features/governance/metering/metering-services.js';
import { costOf } from '../../../src/features/governance/prices/cost.js';
import { usageClasses } from '../../../src/features/governance/prices/usage-classes.js';
import { STORE } from '../../../src/kernel/store/store-capability.js';
import { chatLine, CountingChat } from '../../helpers/batch-fakes.js';
import { FakeUpstream } from '../../helpers/fake-upstream.js';
import { capabilitiesWith, MemoryBudgetLedger, testInputs, testPrices } from '../../helpers/metering-doubles.js';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';

const KEY = 'cfg-metering-batches-key-0123456789abcdef';
const PRICES = testPrices({ 'deepseek/deepseek-chat': { input: '0.00000027', output: '0.0000011', batch_discount: '0.5' } });

describe('gateway-run batch lines are charged as they finish, at the batch price', () => {
  let upstream: FakeUpstream;
  let gw: TestGateway;

  beforeAll(async () => {
    upstream = await new FakeUpstream().start();
    upstream.on('POST /chat/completions', new CountingChat().handler);
    gw = await startGateway(
      {
        logging: { level: 'warn' },
        providers: { deepseek: { baseUrl: upstream.url } },
        auth: { apiKeys: [{ key: KEY, user: 'ann@example.com', team: 'search' }] },
      },
      { env: { GATEWAY_SECRET_KEY: '' }, capabilities: capabilitiesWith(() => testInputs(PRICES, new MemoryBudgetLedger(), () => [])) },
    );
  });
  afterAll(async () => {
    await gw?.close();
    await upstream?.stop();
  });

  it('one row per line, priced with the batch discount', async () => {
    const client = new OpenAI({
      baseURL: `${gw.url}/v1`,
      apiKey: 'sk-deepseek-owner',
      defaultHeaders: { 'x-gateway-provider': 'deepseek', 'x-gateway-token': KEY },
      maxRetries: 0,
    });
    const input = `${['a', 'b', 'c'].map((id) => chatLine(id)).join('\n')}\n`;
    const file = await client.files.create({ file: await toFile(Buffer.from(input), 'in.jsonl'), purpose: 'batch' });
    const batch = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    for (let i = 0; i < 500; i++) {
      if ((await client.batches.retrieve(batch.id)).status === 'completed') break;
      await new Promise((r) => setTimeout(r, 40));
    }
    await gw.gateway.services.require(USAGE_LEDGER).flush();
    const rows = await gw.gateway.services.require(STORE).query<any>("SELECT * FROM gateway_usage WHERE route = 'batch: POST /v1/chat/completions'");
    expect(rows).toHaveLength(3);
    const usage = { prompt_tokens: 5, completion_tokens: 4, total_tokens: 9 };
    const price = PRICES.get('deepseek/deepseek-chat')!;
    const batchCost = costOf(price, usageClasses(usage), { batch: true })!.micros;
    expect(batchCost).toBeLessThan(costOf(price, usageClasses(usage))!.micros);
    for (const row of rows) {
      expect(row).toMatchObject({ user_id: 'ann@example.com', team: 'search', provider: 'deepseek', model: 'deepseek-chat', status: 200 });
      expect(Number(row.cost_micros)).toBe(batchCost);
    }
    // The batch's own requests (files, batch create/retrieve) cost nothing and leave no row.
    const all = await gw.gateway.services.require(STORE).query<any>('SELECT route FROM gateway_usage');
    expect(all.every((r: any) => r.route.startsWith('batch: '))).toBe(true);
  });
});
