/**
 * A gateway key rides in any of the headers §8 accepts on provider routes (Authorization: Bearer,
 * x-api-key, api-key, x-gateway-token), and a batch the gateway runs sends each line with the
 * credentials its batch was made with. The lines kept only Authorization and x-gateway-*: a key
 * in x-api-key or api-key (the Anthropic and Azure SDKs' headers) was dropped, so the lines ran
 * without it: nothing was charged to the key or its budgets, and its limits did not count them.
 * A line's request has no connection: it is marked as the gateway's own, so the transport check
 * (no credential over plain HTTP off loopback) does not refuse the key the batch came in with.
 */
import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { USAGE_LEDGER } from '../../../src/features/governance/metering/metering-services.js';
import { STORE } from '../../../src/kernel/store/store-capability.js';
import { chatLine, CountingChat } from '../../helpers/batch-fakes.js';
import { FakeUpstream } from '../../helpers/fake-upstream.js';
import { issueKey } from '../../helpers/gateway-keys.js';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';

const ADMIN = 'admin-token-batch-key-headers-0123456789';

describe('batch lines carry the gateway key from whichever header brought it', () => {
  let upstream: FakeUpstream;
  let gw: TestGateway;

  beforeAll(async () => {
    upstream = await new FakeUpstream().start();
    upstream.on('POST /chat/completions', new CountingChat().handler);
    gw = await startGateway({
      logging: { level: 'warn' },
      providers: { deepseek: { baseUrl: upstream.url } },
      auth: { adminToken: ADMIN },
    });
  });
  afterAll(async () => {
    await gw?.close();
    await upstream?.stop();
  });

  for (const header of ['x-api-key', 'api-key', 'x-gateway-token'] as const) {
    it(`a key in ${header}: every line is charged to it`, async () => {
      const key = await issueKey(gw.url, ADMIN, { user: `${header}@example.com`, team: 'search' });
      const client = new OpenAI({
        baseURL: `${gw.url}/v1`,
        apiKey: 'sk-deepseek-owner',
        defaultHeaders: { 'x-gateway-provider': 'deepseek', [header]: key.token },
        maxRetries: 0,
      });
      const input = `${['a', 'b', 'c'].map((id) => chatLine(`${header}-${id}`)).join('\n')}\n`;
      const file = await client.files.create({ file: await toFile(Buffer.from(input), 'in.jsonl'), purpose: 'batch' });
      const batch = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
      let status = batch.status;
      for (let i = 0; i < 500 && status !== 'completed' && status !== 'failed'; i++) {
        await new Promise((r) => setTimeout(r, 40));
        status = (await client.batches.retrieve(batch.id)).status;
      }
      expect(status).toBe('completed');
      await gw.gateway.services.require(USAGE_LEDGER).flush();
      const rows = await gw.gateway.services
        .require(STORE)
        .query<any>("SELECT key_id, user_id, team, status FROM gateway_usage WHERE route = 'batch: POST /v1/chat/completions' AND key_id = ?", [key.id]);
      expect(rows).toHaveLength(3);
      for (const row of rows) expect(row).toMatchObject({ key_id: key.id, user_id: `${header}@example.com`, team: 'search', status: 200 });
    });
  }
});
