import { request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ApplicableBudget, GatewayKey } from '../../../src/features/governance/governance-types.js';
import { USAGE_LEDGER } from '../../../src/features/governance/metering/metering-services.js';
import { costOf } from '../../../src/features/governance/prices/cost.js';
import { usdFromMicros } from '../../../src/features/governance/prices/money.js';
import { usageClasses } from '../../../src/features/governance/prices/usage-classes.js';
import { STORE } from '../../../src/kernel/store/store-capability.js';
import { FakeUpstream, sleep } from '../../helpers/fake-upstream.js';
import { fixtureChunks, fixtureJson } from '../../helpers/fixtures.js';
import { capabilitiesWith, MemoryBudgetLedger, testInputs, testPrices } from '../../helpers/metering-doubles.js';
import { answers, CHAT, chatBody, post, streamChunks, UPSTREAM_CHAT, waitFor } from '../../helpers/routing-harness.js';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';

const KEY = 'cfg-metering-key-alpha-0001-0123456789abcdef';
const KEY_B = 'cfg-metering-key-beta-0002-0123456789abcdef';
const ADS_LEAD = 'cfg-metering-key-ads-lead-0003-0123456789ab';
const ADMIN = 'admin-token-metering-0003-0123456789abcdef';
const PRICES = testPrices({
  'openai/gpt-4o-mini': { input: '0.00000015', output: '0.0000006', cache_read: '0.000000075' },
  'openai/text-embedding-3-small': { input: '0.00000002' },
  'anthropic/claude-3-5-sonnet-20241022': { input: '0.000003', output: '0.000015', cache_read: '0.0000003', cache_write: '0.00000375' },
});
const openaiHeaders = (key = KEY) => ({ 'x-gateway-provider': 'openai', authorization: 'Bearer sk-caller', 'x-gateway-token': key });

/** The golden cost of a usage block at a test price: the one cost function. */
const golden = (model: string, usage: unknown) => costOf(PRICES.get(model)!, usageClasses(usage))!.micros;

describe('metering requests made with a gateway key', () => {
  let openai: FakeUpstream;
  let anthropic: FakeUpstream;
  let gw: TestGateway;
  const ledger = new MemoryBudgetLedger();
  let budgets: (key: GatewayKey) => ApplicableBudget[] = () => [];

  async function rows(): Promise<any[]> {
    await gw.gateway.services.require(USAGE_LEDGER).flush();
    return gw.gateway.services.require(STORE).query('SELECT * FROM gateway_usage ORDER BY at, request_id');
  }
  async function rowOf(requestId: string): Promise<any> {
    let found: any;
    for (let i = 0; i < 50 && !found; i++) {
      found = (await rows()).find((r) => r.request_id === requestId);
      if (!found) await sleep(20);
    }
    return found;
  }

  beforeAll(async () => {
    [openai, anthropic] = await Promise.all([new FakeUpstream().start(), new FakeUpstream().start()]);
    gw = await startGateway(
      {
        logging: { level: 'warn' },
        providers: { openai: { baseUrl: `${openai.url}/v1` }, anthropic: { baseUrl: anthropic.url } },
        auth: {
          adminToken: ADMIN,
          apiKeys: [
            { key: KEY, user: 'ann@example.com', team: 'search' },
            { key: KEY_B, user: 'bob@example.com', team: 'ads' },
            { key: ADS_LEAD, user: 'lead@example.com', team: 'ads', roles: ['team_admin'] },
          ],
        },
        pricing: { unpriced: 'refuse' },
        budgets: { onStoreDown: 'refuse' },
      },
      { capabilities: capabilitiesWith(() => testInputs(PRICES, ledger, (key) => budgets(key))) },
    );
  });
  afterAll(async () => {
    await gw?.close();
    await Promise.all([openai, anthropic].map((f) => f?.stop()));
  });
  beforeEach(() => {
    budgets = () => [];
    ledger.down = false;
    openai.requests.length = 0;
    openai.on(UPSTREAM_CHAT, answers('metered answer here'));
    openai.on('POST /v1/embeddings', { json: fixtureJson('openai', 'embeddings') });
    anthropic.on('POST /v1/messages', { json: fixtureJson('anthropic', 'text') });
  });

  it('charges a chat answer its cost by the one cost function, in x-gateway-cost and one ledger row', async () => {
    const res = await post(gw.url, CHAT, chatBody(), openaiHeaders());
    expect(res.status).toBe(200);
    const usage = res.json.usage;
    const micros = golden('openai/gpt-4o-mini', usage);
    expect(micros).toBeGreaterThan(0);
    expect(res.headers['x-gateway-cost']).toBe(usdFromMicros(micros));
    const row = await rowOf(String(res.headers['x-gateway-request-id']));
    expect(row).toMatchObject({
      key_id: expect.any(String),
      user_id: 'ann@example.com',
      team: 'search',
      route: 'POST /v1/chat/completions',
      provider: 'openai',
      model: 'gpt-4o-mini',
      status: 200,
    });
    expect(Number(row.cost_micros)).toBe(micros);
    expect(Number(row.input_tokens)).toBe(5);
    expect(Number(row.output_tokens)).toBe(7);
    expect(Number(row.estimated)).toBe(0);
    const metrics = await (await request(`${gw.url}/metrics`)).body.text();
    expect(metrics).toMatch(/gateway_spend_usd_total\{team="search",model="gpt-4o-mini",provider="openai"\} 0\.\d+/);
  });

  it('a request without a gateway key is not metered: no cost header, no row', async () => {
    const before = (await rows()).length;
    const res = await post(gw.url, CHAT, chatBody(), { 'x-gateway-provider': 'openai', authorization: 'Bearer sk-caller' });
    expect(res.status).toBe(200);
    expect(res.headers['x-gateway-cost']).toBeUndefined();
    expect((await rows()).length).toBe(before);
  });

  it('an answer from the gateway cache costs nothing', async () => {
    const headers = { ...openaiHeaders(), 'x-gateway-config': JSON.stringify({ provider: 'openai', cache: { mode: 'simple' } }) };
    const body = chatBody({ messages: [{ role: 'user', content: `cache me ${Date.now()}` }] });
    const first = await post(gw.url, CHAT, body, headers);
    const second = await post(gw.url, CHAT, body, headers);
    expect(second.headers['x-gateway-cache-status']).toBe('HIT');
    expect(first.headers['x-gateway-cost']).toBe(usdFromMicros(golden('openai/gpt-4o-mini', first.json.usage)));
    expect(second.headers['x-gateway-cost']).toBe('0.000000');
    const row = await rowOf(String(second.headers['x-gateway-request-id']));
    expect(Number(row.cost_micros)).toBe(0);
  });

  it('bills a stream the caller did not ask usage for: usage asked upstream, no usage chunk sent, row priced', async () => {
    const res = await post(gw.url, CHAT, chatBody({ stream: true }), openaiHeaders());
    expect(res.status).toBe(200);
    expect(res.done).toBe(true);
    expect(openai.requests.at(-1)!.json().stream_options).toEqual({ include_usage: true });
    expect(res.events.some((e) => e.usage)).toBe(false);
    expect(res.events.every((e) => e.choices.length > 0)).toBe(true);
    expect(res.headers['x-gateway-cost']).toBeUndefined();
    const row = await rowOf(String(res.headers['x-gateway-request-id']));
    expect(Number(row.cost_micros)).toBe(golden('openai/gpt-4o-mini', { prompt_tokens: 5, completion_tokens: 7, total_tokens: 12 }));
    expect(Number(row.estimated)).toBe(0);
  });

  it('a stream that asked for usage keeps its usage chunk and is billed from it', async () => {
    const res = await post(gw.url, CHAT, chatBody({ stream: true, stream_options: { include_usage: true } }), openaiHeaders());
    expect(res.events.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 5, completion_tokens: 7 } });
    const row = await rowOf(String(res.headers['x-gateway-request-id']));
    expect(Number(row.output_tokens)).toBe(7);
  });

  it('bills what was generated when the caller goes away mid-stream (counted, marked estimated)', async () => {
    const pieces = Array.from({ length: 40 }, (_, i) => `word${i} `);
    openai.on(UPSTREAM_CHAT, { chunks: streamChunks(pieces, { done: false }), delayMs: 15, end: 'hang' });
    const controller = new AbortController();
    const res = await request(`${gw.url}${CHAT}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...openaiHeaders() },
      body: JSON.stringify(chatBody({ stream: true })),
      signal: controller.signal,
    });
    const requestId = String(res.headers['x-gateway-request-id']);
    let seen = '';
    try {
      for await (const chunk of res.body) {
        seen += chunk.toString();
        if ((seen.match(/word/g) ?? []).length >= 5) break;
      }
    } finally {
      controller.abort();
    }
    const row = await rowOf(requestId);
    expect(row).toBeDefined();
    expect(Number(row.estimated)).toBe(1);
    expect(Number(row.output_tokens)).toBeGreaterThanOrEqual(5);
    expect(Number(row.input_tokens)).toBeGreaterThan(0);
    expect(Number(row.cost_micros)).toBe(golden('openai/gpt-4o-mini', { prompt_tokens: Number(row.input_tokens), completion_tokens: Number(row.output_tokens) }));
  });

  it('charges embeddings (input tokens) and messages (Anthropic usage) by the cost function', async () => {
    const emb = await post(gw.url, '/v1/embeddings', { model: 'text-embedding-3-small', input: ['a', 'b'] }, openaiHeaders());
    expect(emb.status).toBe(200);
    expect(emb.headers['x-gateway-cost']).toBe(usdFromMicros(golden('openai/text-embedding-3-small', emb.json.usage)));
    const msg = await post(
      gw.url,
      '/v1/messages',
      { model: 'claude-3-5-sonnet-20241022', max_tokens: 100, messages: [{ role: 'user', content: 'Hi' }] },
      { 'x-gateway-provider': 'anthropic', authorization: 'Bearer k', 'x-gateway-token': KEY },
    );
    expect(msg.status).toBe(200);
    const micros = golden('anthropic/claude-3-5-sonnet-20241022', msg.json.usage);
    expect(msg.headers['x-gateway-cost']).toBe(usdFromMicros(micros));
    const row = await rowOf(String(msg.headers['x-gateway-request-id']));
    expect(row).toMatchObject({ provider: 'anthropic', route: 'POST /v1/messages' });
    expect(Number(row.cost_micros)).toBe(micros);
  });

  it('charges a passed-through Messages stream from its message_start and message_delta usage', async () => {
    anthropic.on('POST /v1/messages', { chunks: fixtureChunks('anthropic', 'text') });
    const res = await post(
      gw.url,
      '/v1/messages',
      { model: 'claude-3-5-sonnet-20241022', max_tokens: 100, stream: true, messages: [{ role: 'user', content: 'Hi' }] },
      { 'x-gateway-provider': 'anthropic', authorization: 'Bearer k', 'x-gateway-token': KEY },
    );
    expect(res.status).toBe(200);
    expect(res.text).toContain('message_stop');
    const row = await rowOf(String(res.headers['x-gateway-request-id']));
    expect(Number(row.input_tokens)).toBe(31);
    expect(Number(row.output_tokens)).toBe(12);
    expect(Number(row.estimated)).toBe(0);
    expect(Number(row.cost_micros)).toBe(
      golden('anthropic/claude-3-5-sonnet-20241022', { input_tokens: 31, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, output_tokens: 12 }),
    );
  });

  describe('budgets', () => {
    const budget = (id: string, limit: number, extra: Partial<ApplicableBudget['budget']> = {}): ApplicableBudget => ({
      id,
      scope: 'team',
      subject: 'search',
      budget: { limit_usd: limit, ...extra },
    });

    it('reserves, settles to the real cost and answers the tightest remaining money', async () => {
      const b = budget(`team:search:${Date.now()}`, 1);
      budgets = () => [b];
      const res = await post(gw.url, CHAT, chatBody({ max_tokens: 100 }), openaiHeaders());
      expect(res.status).toBe(200);
      const micros = golden('openai/gpt-4o-mini', res.json.usage);
      expect(res.headers['x-gateway-budget-remaining']).toBe(usdFromMicros(1_000_000 - micros));
      await waitFor(() => (ledger.spentBy.get(b.id)?.micros ?? -1) === micros);
    });

    it('refuses a request that does not fit: 429 budget_exceeded, param null, scope and reset named, no retry', async () => {
      budgets = () => [budget('team:search:tiny', 0.000001, { name: 'tiny' })];
      const res = await post(gw.url, CHAT, chatBody({ max_tokens: 1000 }), openaiHeaders());
      expect(res.status).toBe(429);
      expect(res.json).toMatchObject({ status: 'failure', error: { type: 'rate_limit_error', code: 'budget_exceeded', param: null } });
      expect(res.json.error.message).toContain('team budget "tiny" of search');
      expect(res.json.error.message).toContain(new Date(1_900_000_000 * 1000).toISOString());
      expect(res.headers['x-should-retry']).toBe('false');
      expect(res.headers['x-gateway-budget-reset']).toBe('1900000000');
      expect(openai.requests).toEqual([]);
      const row = await rowOf(String(res.headers['x-gateway-request-id']));
      expect(row).toMatchObject({ status: 429 });
      expect(Number(row.cost_micros)).toBe(0);
      const metrics = await (await request(`${gw.url}/metrics`)).body.text();
      expect(metrics).toMatch(/gateway_budget_refusals_total\{scope="team"\} [1-9]/);
    });

    it('reserves a prompt at its body size first, and near the limit asks again with the tokenizer count', async () => {
      // ~2,400 characters that the tokenizer counts as a few hundred tokens
      const long = chatBody({ max_tokens: 10, messages: [{ role: 'user', content: 'hello there '.repeat(200) }] });
      const bytes = Buffer.byteLength(JSON.stringify(long));
      const tokens = (limit: number): ApplicableBudget => ({ id: `team:search:tokens:${limit}:${Date.now()}`, scope: 'team', subject: 'search', budget: { limit_tokens: limit } });
      const roomy = tokens(bytes * 10);
      budgets = () => [roomy];
      let before = ledger.reserves;
      expect((await post(gw.url, CHAT, long, openaiHeaders())).status).toBe(200);
      expect(ledger.reserves - before).toBe(1);
      // the body's bytes do not fit, the counted prompt does: served after a second ask
      const tight = tokens(Math.floor(bytes / 2));
      budgets = () => [tight];
      before = ledger.reserves;
      expect((await post(gw.url, CHAT, long, openaiHeaders())).status).toBe(200);
      expect(ledger.reserves - before).toBe(2);
      // the counted prompt does not fit either: refused
      budgets = () => [tokens(50)];
      expect((await post(gw.url, CHAT, long, openaiHeaders())).status).toBe(429);
    });

    it('an unpriced model under a money budget is 403 naming it; without a money budget it is served with cost null', async () => {
      budgets = () => [budget('team:search:money', 10)];
      const refused = await post(gw.url, CHAT, chatBody({ model: 'gpt-unpriced' }), openaiHeaders());
      expect(refused.status).toBe(403);
      expect(refused.json.error).toMatchObject({ type: 'permission_error', code: 'insufficient_permissions' });
      expect(refused.json.error.message).toContain('gpt-unpriced');
      expect(openai.requests).toEqual([]);
      budgets = () => [];
      const served = await post(gw.url, CHAT, chatBody({ model: 'gpt-unpriced' }), openaiHeaders());
      expect(served.status).toBe(200);
      expect(served.headers['x-gateway-cost']).toBeUndefined();
      const row = await rowOf(String(served.headers['x-gateway-request-id']));
      expect(row.cost_micros).toBeNull();
      const metrics = await (await request(`${gw.url}/metrics`)).body.text();
      expect(metrics).toMatch(/gateway_unpriced_requests_total [1-9]/);
    });

    it('with the budget store down and onStoreDown refuse: 503, nothing sent', async () => {
      budgets = () => [budget('team:search:down', 10)];
      ledger.down = true;
      const res = await post(gw.url, CHAT, chatBody(), openaiHeaders());
      expect(res.status).toBe(503);
      expect(res.json.error).toMatchObject({ type: 'service_unavailable', code: 'service_unavailable' });
      expect(openai.requests).toEqual([]);
    });
  });

  describe('the usage report and /v1/me', () => {
    it('sums by team as JSON and CSV (admin token)', async () => {
      await post(gw.url, CHAT, chatBody(), openaiHeaders(KEY_B));
      await rows();
      const from = new Date(Date.now() - 3_600_000).toISOString();
      const unauth = await request(`${gw.url}/v1/admin/usage?group_by=team`);
      expect(unauth.statusCode).toBe(401);
      await unauth.body.text();
      const res = await request(`${gw.url}/v1/admin/usage?group_by=team&from=${from}&interval=day`, { headers: { authorization: `Bearer ${ADMIN}` } });
      expect(res.statusCode).toBe(200);
      const body = (await res.body.json()) as any;
      const all = await rows();
      const ads = all.filter((r) => r.team === 'ads');
      const line = body.data.find((l: any) => l.group === 'ads');
      expect(line.requests).toBe(ads.length);
      expect(line.cost_micros).toBe(ads.reduce((s, r) => s + Number(r.cost_micros ?? 0), 0));
      expect(line.period).toMatch(/T00:00:00.000Z$/);
      const csv = await request(`${gw.url}/v1/admin/usage?group_by=team&from=${from}&format=csv`, { headers: { authorization: `Bearer ${ADMIN}` } });
      expect(csv.headers['content-type']).toContain('text/csv');
      const text = await csv.body.text();
      const [header, ...lines] = text.trim().split('\n');
      expect(header!.split(',').slice(0, 3)).toEqual(['team', 'requests', 'input_tokens']);
      expect(lines.find((l) => l.startsWith('ads,'))!.split(',')[1]).toBe(String(ads.length));
      // A team_admin reads its own team's usage only; the recent requests are not its to read.
      const scoped = await request(`${gw.url}/v1/admin/usage?group_by=team&from=${from}`, { headers: { authorization: `Bearer ${ADS_LEAD}` } });
      expect(scoped.statusCode).toBe(200);
      const own = (await scoped.body.json()) as any;
      expect(own.team).toBe('ads');
      expect(own.data.map((l: any) => [l.group, l.requests])).toEqual([['ads', ads.length]]);
      const recent = await request(`${gw.url}/v1/admin/requests`, { headers: { authorization: `Bearer ${ADS_LEAD}` } });
      expect(recent.statusCode).toBe(403);
      await recent.body.text();
      const bad = await request(`${gw.url}/v1/admin/usage?group_by=planet`, { headers: { authorization: `Bearer ${ADMIN}` } });
      expect(bad.statusCode).toBe(400);
      expect(((await bad.body.json()) as any).error.param).toBe('group_by');
    });

    it('/v1/me answers a key its budgets with spend', async () => {
      const b = { id: 'key:me:0', scope: 'key' as const, subject: 'me', budget: { limit_usd: 5, window: { period: 'day' } } };
      budgets = () => [b];
      await post(gw.url, CHAT, chatBody(), openaiHeaders());
      await waitFor(() => ledger.spentBy.has(b.id));
      const res = await request(`${gw.url}/v1/me`, { headers: { authorization: `Bearer ${KEY}` } });
      expect(res.statusCode).toBe(200);
      const me = (await res.body.json()) as any;
      expect(me).toMatchObject({ object: 'gateway_key', user: 'ann@example.com', team: 'search' });
      expect(me.budgets[0]).toMatchObject({ id: 'key:me:0', limit_usd: 5, spent_usd: usdFromMicros(ledger.spentBy.get(b.id)!.micros), resets_at: 1_900_000_000 });
      const anon = await request(`${gw.url}/v1/me`);
      expect(anon.statusCode).toBe(401);
      await anon.body.text();
    });
  });
});

describe('metering with budgets.onStoreDown: allow and pricing.unpriced: allow', () => {
  let openai: FakeUpstream;
  let gw: TestGateway;
  const ledger = new MemoryBudgetLedger();
  const money: ApplicableBudget = { id: 'team:search:0', scope: 'team', subject: 'search', budget: { limit_usd: 10 } };

  beforeAll(async () => {
    openai = await new FakeUpstream().start();
    openai.on(UPSTREAM_CHAT, answers('served anyway'));
    gw = await startGateway(
      {
        logging: { level: 'warn' },
        providers: { openai: { baseUrl: `${openai.url}/v1` } },
        auth: { apiKeys: [{ key: KEY, user: 'ann@example.com', team: 'search' }] },
        pricing: { unpriced: 'allow' },
        budgets: { onStoreDown: 'allow' },
      },
      { capabilities: capabilitiesWith(() => testInputs(PRICES, ledger, () => [money])) },
    );
  });
  afterAll(async () => {
    await gw?.close();
    await openai?.stop();
  });

  async function rowOf(requestId: string): Promise<any> {
    for (let i = 0; i < 50; i++) {
      await gw.gateway.services.require(USAGE_LEDGER).flush();
      const found = (await gw.gateway.services.require(STORE).query<any>('SELECT * FROM gateway_usage WHERE request_id = ?', [requestId]))[0];
      if (found) return found;
      await sleep(20);
    }
    return undefined;
  }

  it('serves while the store is down, records the row as unverified and warns', async () => {
    ledger.down = true;
    const res = await post(gw.url, CHAT, chatBody(), openaiHeaders());
    expect(res.status).toBe(200);
    expect(res.headers['x-gateway-cost']).toBe(usdFromMicros(golden('openai/gpt-4o-mini', res.json.usage)));
    const row = await rowOf(String(res.headers['x-gateway-request-id']));
    expect(Number(row.unverified)).toBe(1);
    expect(gw.logs.text).toContain('budget store down');
    ledger.down = false;
  });

  it('serves an unpriced model under a money budget, recorded with cost null', async () => {
    const res = await post(gw.url, CHAT, chatBody({ model: 'gpt-unpriced' }), openaiHeaders());
    expect(res.status).toBe(200);
    const row = await rowOf(String(res.headers['x-gateway-request-id']));
    expect(row.cost_micros).toBeNull();
    expect(Number(row.unverified)).toBe(0);
  });
});
