import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { request } from 'undici';
import { FakeUpstream } from '../../helpers/fake-upstream.js';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';
import { answers, UPSTREAM_CHAT } from '../../helpers/routing-harness.js';

const ADMIN = 'admin-token-money-e2e-0123456789abcdef';
const HELD = 'sk-held-openai-money-0001';

/**
 * Keys, models and money together, with nothing faked inside the gateway: a catalogue model
 * through a held credential, a team budget from the config and another made through the admin
 * API, on the real budget ledger (SQLite), metered into the real usage ledger.
 */
describe('a gateway key, a catalogue model and team budgets, end to end', () => {
  let upstream: FakeUpstream;
  let gw: TestGateway;
  let searchKey: string;
  let adsKey: string;

  const issue = async (team: string): Promise<string> => {
    const res = await request(`${gw.url}/v1/auth/tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ user: `${team}@example.com`, team }),
    });
    expect(res.statusCode).toBe(201);
    return ((await res.body.json()) as { token: string }).token;
  };
  const client = (key: string) => new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });

  beforeAll(async () => {
    upstream = await new FakeUpstream().start();
    upstream.on(UPSTREAM_CHAT, answers('priced answer'));
    gw = await startGateway({
      logging: { level: 'warn' },
      auth: { adminToken: ADMIN },
      secrets: { key: 'cd'.repeat(32) },
      providers: { openai: { baseUrl: `${upstream.url}/v1` } },
      credentials: { 'openai-prod': { provider: 'openai', api_key: HELD } },
      models: {
        chat: {
          targets: [{ provider: 'openai', model: 'gpt-4o-mini', credential: 'openai-prod' }],
          price: { input: '0.000001', output: '0.000002' },
          max_output_tokens: 1000,
        },
      },
      tenants: { teams: { search: {}, ads: {} } },
      budgets: { team: { search: { limit_usd: 1, window: { period: 'month' } } } },
    });
    [searchKey, adsKey] = [await issue('search'), await issue('ads')];
  });
  afterAll(async () => {
    await gw?.close();
    await upstream?.stop();
  });

  it('serves a key within its team budget, with its cost and what is left, through the held key', async () => {
    const { data, response } = await client(searchKey)
      .chat.completions.create({ model: 'chat', messages: [{ role: 'user', content: 'hi' }] })
      .withResponse();
    expect(data.choices[0]!.message.content).toBe('priced answer');
    expect(upstream.received(UPSTREAM_CHAT).at(-1)!.headers.authorization).toBe(`Bearer ${HELD}`);
    const cost = Number(response.headers.get('x-gateway-cost'));
    expect(cost).toBeGreaterThan(0);
    const remaining = Number(response.headers.get('x-gateway-budget-remaining'));
    expect(remaining).toBeLessThan(1);
    expect(remaining).toBeGreaterThan(0.99);
  });

  it('refuses a request whose worst case does not fit the budget made through the admin API, and it costs nothing', async () => {
    const made = await request(`${gw.url}/v1/admin/budgets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ scope: 'team', subject: 'ads', limit_usd: 0.000001, window: { period: 'day' } }),
    });
    expect(made.statusCode).toBe(201);
    const before = upstream.received(UPSTREAM_CHAT).length;
    const refused = await client(adsKey)
      .chat.completions.create({ model: 'chat', messages: [{ role: 'user', content: 'hi' }] })
      .then(
        () => undefined,
        (err: InstanceType<typeof OpenAI.APIError>) => err,
      );
    expect(refused?.status).toBe(429);
    expect((refused?.error as { code?: string } | undefined)?.code).toBe('budget_exceeded');
    expect(refused?.headers?.get('x-should-retry')).toBe('false');
    expect(Number(refused?.headers?.get('x-gateway-budget-reset'))).toBeGreaterThan(Date.now() / 1000);
    expect(upstream.received(UPSTREAM_CHAT).length).toBe(before);
  });

  it('answers each key its own spend and budgets on /v1/me', async () => {
    const res = await request(`${gw.url}/v1/me`, { headers: { authorization: `Bearer ${searchKey}` } });
    expect(res.statusCode).toBe(200);
    const me = JSON.stringify(await res.body.json());
    expect(me).toContain('team:search:0');
  });
});
