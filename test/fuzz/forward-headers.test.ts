import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Agent } from 'undici';
import { FakeUpstream } from '../helpers/fake-upstream.js';
import { startGateway, type TestGateway } from '../helpers/start-gateway.js';
import { answers, UPSTREAM_CHAT } from '../helpers/routing-harness.js';
import { countStatus, expectContractError, fuzz, RUNS, send, summary, type FuzzWorld } from './harness.js';

const OPERATOR = { 'X-Tenant-Secret': 'tenant-secret-fuzz-0001', 'X-Groq-Org': 'groq-org-fuzz-0002' };
const CALLER_KEY = 'sk-forward-fuzz-caller-0003';

/**
 * Names no forwarded header may carry a caller's value under (the test's own list, written from
 * contract section 4): the virtual host, hop-by-hop headers, the gateway's own credentials and
 * the operator's headers.
 */
const FORBIDDEN = [
  'host',
  'connection',
  'keep-alive',
  'te',
  'trailer',
  'trailers',
  'transfer-encoding',
  'upgrade',
  'content-length',
  'authorization',
  'x-api-key',
  'api-key',
  'x-tenant-secret',
  'x-groq-org',
];
const forbidden = (name: string) => {
  const n = name.toLowerCase();
  return FORBIDDEN.includes(n) || n.startsWith('proxy-') || n.startsWith('x-gateway-');
};
/** Names undici will not send as request headers, or that would change what the request is (its key, body, config). */
const NOT_SENT = ['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'expect', 'content-length', 'content-type', 'authorization', 'x-api-key', 'api-key'];

/** A name in a random casing. */
const recased = (names: string[]) =>
  fc
    .tuple(fc.constantFrom(...names), fc.array(fc.boolean(), { minLength: 24, maxLength: 24 }))
    .map(([n, flips]) => [...n].map((c, i) => (flips[i] ? c.toUpperCase() : c)).join(''));

const headerName = fc.oneof(
  { weight: 4, arbitrary: fc.stringMatching(/^[a-zA-Z][a-zA-Z0-9-]{0,20}$/) },
  { weight: 3, arbitrary: recased([...FORBIDDEN, 'proxy-connection', 'x-gateway-token', 'x-gateway-api-key', 'x-goog-api-key', 'content-type', 'x-trace', 'traceparent']) },
  { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
  { weight: 1, arbitrary: fc.constantFrom('', ' ', 'a b', 'x:y', 'é', 'x\r\ny', 'host ', '\u0000') },
);

interface Case {
  names: string[];
  provider: 'openai' | 'groq';
  nested: boolean;
}

const cases: fc.Arbitrary<Case> = fc.record({
  names: fc.array(headerName, { minLength: 1, maxLength: 5 }),
  provider: fc.constantFrom('openai' as const, 'groq' as const),
  nested: fc.boolean(),
});

/**
 * Caller configs whose forward_headers name random headers, sent with a marked value for each:
 * whatever the names, no caller value reaches the upstream as its host, a hop-by-hop header, a
 * credential or an operator header; the operator's headers reach it unchanged; and the answer is
 * a success or the contract's error body (a config naming a refused header is a 400, nothing sent).
 */
describe('fuzz: forward_headers in caller configs', { timeout: 600_000 }, () => {
  let upstream: FakeUpstream;
  let gw: TestGateway;
  let dispatcher: Agent;
  let world: FuzzWorld;

  beforeAll(async () => {
    upstream = await new FakeUpstream().on(UPSTREAM_CHAT, answers('ok')).start();
    gw = await startGateway({
      logging: { level: 'error' },
      providers: {
        openai: { baseUrl: `${upstream.url}/v1`, headers: { 'X-Tenant-Secret': OPERATOR['X-Tenant-Secret'] } },
        groq: { baseUrl: `${upstream.url}/v1`, headers: { 'X-Groq-Org': OPERATOR['X-Groq-Org'] } },
      },
    });
    dispatcher = new Agent({ connections: 4, keepAliveTimeout: 2000 });
    // send() needs only the address and the connection pool.
    world = { base: gw.url, dispatcher } as unknown as FuzzWorld;
  });
  afterAll(async () => {
    await dispatcher?.close();
    await gw?.close();
    await upstream?.stop();
    console.log(summary());
  });

  it('never forwards a host, hop-by-hop, credential or operator header', async () => {
    const upstreamHost = new URL(upstream.url).host;
    await fuzz('forward_headers', cases, RUNS(300), async ({ names, provider, nested }) => {
      upstream.requests.length = 0;
      const headers: Record<string, string> = { 'content-type': 'application/json', 'x-gateway-api-key': CALLER_KEY };
      const markers = new Map<string, string>();
      names.forEach((name, i) => {
        const lower = name.toLowerCase();
        if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name) || NOT_SENT.includes(lower) || lower.startsWith('x-gateway-') || markers.has(lower)) return;
        const marker = `caller-value-${i}-${lower.length}`;
        markers.set(lower, marker);
        headers[name] = marker;
      });
      const target = nested ? { targets: [{ provider, forward_headers: names }] } : { provider, forward_headers: names };
      headers['x-gateway-config'] = JSON.stringify(target);
      if (!/^[\x20-\x7e]*$/.test(headers['x-gateway-config'])) return;
      const what = `forward_headers ${JSON.stringify(names)} (${provider}${nested ? ', nested' : ''})`;
      const answer = await send(world, {
        method: 'POST',
        path: '/v1/chat/completions',
        headers,
        body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'Hi' }] }),
      });
      countStatus(answer.status);
      if (answer.status >= 400) expectContractError(answer, what);
      else expect(answer.status, what).toBe(200);
      expect(answer.status, what).toBeLessThan(500);
      for (const secret of Object.values(OPERATOR)) expect(answer.text, what).not.toContain(secret);
      if (names.some(forbidden)) {
        expect(answer.status, `${what}: a refused name is a 400`).toBe(400);
        expect(upstream.requests, `${what}: nothing is sent`).toEqual([]);
      }
      for (const sent of upstream.requests) {
        expect(sent.headers.host, what).toBe(upstreamHost);
        for (const [name, value] of Object.entries(sent.headers)) {
          const text = Array.isArray(value) ? value.join(', ') : String(value);
          if (forbidden(name)) expect(text, `${what}: ${name} carries a caller value`).not.toMatch(/caller-value-/);
        }
        const own = provider === 'openai' ? 'x-tenant-secret' : 'x-groq-org';
        expect(sent.headers[own], what).toBe(provider === 'openai' ? OPERATOR['X-Tenant-Secret'] : OPERATOR['X-Groq-Org']);
        expect(sent.headers.authorization, what).toBe(`Bearer ${CALLER_KEY}`);
      }
    });
  });
});

const HELD = { openai: 'sk-held-fuzz-openai-0004', groq: 'gsk-held-fuzz-groq-0005' };
const GATEWAY_KEY = 'cfg-held-fuzz-gateway-0006';

interface KeyCase {
  targets: Array<{ provider: 'openai' | 'groq'; ownKey: boolean; customHost: boolean }>;
  providerHeader?: 'openai' | 'groq';
  requestKey: boolean;
  token: boolean;
}

const keyCases: fc.Arbitrary<KeyCase> = fc.record(
  {
    targets: fc.array(fc.record({ provider: fc.constantFrom('openai' as const, 'groq' as const), ownKey: fc.boolean(), customHost: fc.boolean() }), { minLength: 1, maxLength: 3 }),
    providerHeader: fc.constantFrom('openai' as const, 'groq' as const),
    requestKey: fc.boolean(),
    token: fc.boolean(),
  },
  { requiredKeys: ['targets', 'requestKey', 'token'] },
);

/**
 * Caller configs of random targets (with or without their own key, at the operator's address or
 * a custom host the caller chose), sent with or without a provider key and a gateway credential:
 * a key the gateway holds reaches only the operator's address, and only for a request that
 * brings a gateway credential; the caller's host never gets it nor an operator header.
 */
describe('fuzz: keys the gateway holds, under caller configs', { timeout: 600_000 }, () => {
  let operator: FakeUpstream;
  let chosen: FakeUpstream;
  let gw: TestGateway;
  let dispatcher: Agent;

  beforeAll(async () => {
    [operator, chosen] = await Promise.all([0, 1].map(() => new FakeUpstream().on(UPSTREAM_CHAT, { status: 503, json: { error: { message: 'busy' } } }).start()));
    gw = await startGateway({
      logging: { level: 'error' },
      providers: {
        openai: { baseUrl: `${operator.url}/v1`, apiKey: HELD.openai, headers: { 'X-Tenant-Secret': OPERATOR['X-Tenant-Secret'] } },
        groq: { baseUrl: `${operator.url}/v1`, apiKey: HELD.groq },
      },
      routing: { allowCustomHost: true },
      auth: { apiKeys: [{ key: GATEWAY_KEY, user: 'fuzz@example.com' }] },
    });
    dispatcher = new Agent({ connections: 4, keepAliveTimeout: 2000 });
  });
  afterAll(async () => {
    await dispatcher?.close();
    await gw?.close();
    await Promise.all([operator?.stop(), chosen?.stop()]);
  });

  it('never spends a held key without a gateway credential, nor sends it to a caller host', async () => {
    const world = { base: gw.url, dispatcher } as unknown as FuzzWorld;
    const held = Object.values(HELD);
    await fuzz('held keys', keyCases, RUNS(200), async (c) => {
      operator.requests.length = 0;
      chosen.requests.length = 0;
      const config = {
        strategy: { mode: 'fallback' },
        targets: c.targets.map((t, i) => ({
          provider: t.provider,
          ...(t.ownKey ? { api_key: `sk-caller-own-target-${i}` } : {}),
          ...(t.customHost ? { custom_host: `${chosen.url}/v1` } : {}),
        })),
      };
      const headers: Record<string, string> = { 'content-type': 'application/json', 'x-gateway-config': JSON.stringify(config) };
      if (c.providerHeader) headers['x-gateway-provider'] = c.providerHeader;
      if (c.requestKey) headers['x-gateway-api-key'] = CALLER_KEY;
      if (c.token) headers['x-gateway-token'] = GATEWAY_KEY;
      const what = JSON.stringify(c);
      const answer = await send(world, {
        method: 'POST',
        path: '/v1/chat/completions',
        headers,
        body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'Hi' }] }),
      });
      countStatus(answer.status);
      expect(answer.status, what).toBeGreaterThanOrEqual(400);
      expectContractError(answer, what);
      for (const secret of [...held, OPERATOR['X-Tenant-Secret']]) expect(answer.text, what).not.toContain(secret);
      for (const sent of chosen.requests) {
        const all = JSON.stringify(sent.headers);
        for (const secret of [...held, OPERATOR['X-Tenant-Secret']]) expect(all, `${what}: the caller's host got ${secret}`).not.toContain(secret);
      }
      for (const sent of operator.requests) {
        if (held.some((k) => String(sent.headers.authorization).includes(k))) expect(c.token, `${what}: a held key without a gateway credential`).toBe(true);
      }
    });
  });
});
