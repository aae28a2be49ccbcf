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

  it('without secrets.key, a batch made with the caller’s own key is not watched: its key is kept nowhere', async () => {
    upstream.on('POST /v1/batches', { json: { ...batch('validating'), id: 'batch_own_unsealed' } });
    const created = await fetch(`${gw.url}/v1/batches`, {
      method: 'POST',
      headers: { 'x-gateway-provider': 'openai', authorization: 'Bearer sk-caller-openai', 'x-gateway-token': KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ input_file_id: 'file-in', endpoint: '/v1/chat/completions', completion_window: '24h' }),
    });
    expect(created.status).toBe(200);
    await gw.gateway.services.require(USAGE_LEDGER).flush();
    expect(await gw.gateway.services.require(STORE).query('SELECT * FROM gateway_pending_batches')).toEqual([]);
  });
});

/** A batch nobody retrieves again: the gateway watches the batches it submitted on a key it holds, and bills each once it finishes. */
const HELD_KEY = 'sk-operator-openai-0123456789abcdefghij';
const HOLDERS = [
  { holder: 'providers.openai.apiKey', config: { apiKey: HELD_KEY }, extra: {}, route: { provider: 'openai' } },
  {
    holder: 'a held credential',
    config: {},
    extra: { credentials: { 'openai-main': { provider: 'openai', api_key: HELD_KEY } } },
    route: { provider: 'openai', credential: 'openai-main' },
  },
  {
    // The caller's own key (in its routing config), kept sealed under secrets.key until the batch is billed.
    holder: 'the caller’s own key, sealed under secrets.key',
    config: {},
    extra: { secrets: { key: 'cd'.repeat(32) } },
    route: { provider: 'openai', api_key: HELD_KEY },
  },
];

describe.each(HOLDERS)('provider-run batches watched until they finish, on $holder', ({ config, extra, route }) => {
  let upstream: FakeUpstream;
  let gw: TestGateway;
  const batch = (status: string) => ({
    id: 'batch_watched_1',
    object: 'batch',
    endpoint: '/v1/chat/completions',
    status,
    input_file_id: 'file-in',
    output_file_id: status === 'completed' ? 'file-watched-out' : null,
  });

  beforeAll(async () => {
    upstream = await new FakeUpstream().start();
    upstream.on('GET /v1/files/file-watched-out/content', { chunks: [OUTPUT], headers: { 'content-type': 'application/octet-stream' } });
    upstream.on('POST /v1/batches', { json: batch('validating') });
    upstream.on('GET /v1/batches/batch_watched_1', { json: batch('in_progress') });
    upstream.on('POST /v1/files', { json: { id: 'file-in', object: 'file', bytes: 2, created_at: 1, filename: 'in.jsonl', purpose: 'batch', status: 'processed' } });
    gw = await startGateway({
      logging: { level: 'warn' },
      providers: { openai: { baseUrl: `${upstream.url}/v1`, ...config } },
      ...extra,
      auth: { apiKeys: [{ key: KEY, user: 'bo@example.com', team: 'search' }] },
      budgets: { team: { search: { limit_usd: 100, window: { period: 'month' } } } },
      batches: { providerPollInterval: '150ms' },
    });
  });
  afterAll(async () => {
    await gw?.close();
    await upstream?.stop();
  });

  it('is polled with the held key while it runs and billed once when it ends, though no caller asks again; never with a key value at rest', async () => {
    const store = gw.gateway.services.require(STORE);
    const ledger = gw.gateway.services.require(BUDGET_LEDGER);
    const budget = { id: 'team:search:0', scope: 'team' as const, subject: 'search', budget: { limit_usd: 100, window: { period: 'month' as const } } };
    const spent = async () => (await ledger.spent([budget])).get(budget.id)!.micros;

    // On a key the gateway holds, a batch reads only a file its own key uploaded (through the gateway).
    const form = new FormData();
    form.append('purpose', 'batch');
    form.append('file', new Blob(['{}\n']), 'in.jsonl');
    const uploaded = await fetch(`${gw.url}/v1/files`, { method: 'POST', headers: { 'x-gateway-config': JSON.stringify(route), 'x-gateway-token': KEY }, body: form });
    expect(uploaded.status).toBe(200);
    const created = await fetch(`${gw.url}/v1/batches`, {
      method: 'POST',
      headers: { 'x-gateway-config': JSON.stringify(route), 'x-gateway-token': KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ input_file_id: 'file-in', endpoint: '/v1/chat/completions', completion_window: '24h' }),
    });
    expect(created.status).toBe(200);
    await vi.waitFor(async () => expect(await store.query<any>('SELECT * FROM gateway_pending_batches')).toHaveLength(1), { timeout: 5000, interval: 50 });
    const [pending] = await store.query<any>('SELECT * FROM gateway_pending_batches');
    expect(JSON.stringify(pending)).not.toContain(HELD_KEY);
    expect(JSON.stringify(pending)).not.toContain(KEY);

    // Running: asked about with the held key, nothing billed.
    await vi.waitFor(() => expect(upstream.received('GET /v1/batches/batch_watched_1').length).toBeGreaterThanOrEqual(2), { timeout: 5000, interval: 50 });
    expect(upstream.received('GET /v1/batches/batch_watched_1')[0]!.headers.authorization).toBe(`Bearer ${HELD_KEY}`);
    expect(await spent()).toBe(0);

    // Finished: billed per line at the batch price, once, and no longer watched.
    upstream.on('GET /v1/batches/batch_watched_1', { json: batch('completed') });
    const price = gw.gateway.services.require(PRICE_TABLE).lookup('openai', 'gpt-4o-mini')!;
    const total = USAGE.map((u) => costOf(price, usageClasses(u), { batch: true })!.micros).reduce((a, b) => a + b, 0);
    await vi.waitFor(async () => expect(await spent()).toBe(total), { timeout: 5000, interval: 50 });
    await vi.waitFor(async () => expect(await store.query<any>('SELECT * FROM gateway_pending_batches')).toHaveLength(0), { timeout: 5000, interval: 50 });
    const asked = upstream.received('GET /v1/batches/batch_watched_1').length;
    await new Promise((r) => setTimeout(r, 500));
    expect(upstream.received('GET /v1/batches/batch_watched_1').length).toBe(asked);
    expect(upstream.received('GET /v1/files/file-watched-out/content')).toHaveLength(1);
    expect(upstream.received('GET /v1/files/file-watched-out/content')[0]!.headers.authorization).toBe(`Bearer ${HELD_KEY}`);

    // A caller retrieving it now: still billed once.
    const again = await fetch(`${gw.url}/v1/batches/batch_watched_1`, { headers: { 'x-gateway-config': JSON.stringify(route), 'x-gateway-token': KEY } });
    expect(again.status).toBe(200);
    await new Promise((r) => setTimeout(r, 300));
    expect(upstream.received('GET /v1/files/file-watched-out/content')).toHaveLength(1);
    expect(await spent()).toBe(total);
    await gw.gateway.services.require(USAGE_LEDGER).flush();
    const rows = await store.query<any>("SELECT request_id, user_id FROM gateway_usage WHERE route = 'batch: /v1/chat/completions' ORDER BY request_id");
    expect(rows).toEqual([
      { request_id: 'batch_watched_1:line-0', user_id: 'bo@example.com' },
      { request_id: 'batch_watched_1:line-1', user_id: 'bo@example.com' },
    ]);
  });
});
