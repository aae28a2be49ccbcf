import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeUpstream } from '../../helpers/fake-upstream.js';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';
import { answers, answerText, CHAT, chatBody, post, UPSTREAM_CHAT, upstreamError } from '../../helpers/routing-harness.js';

const KEY = 'sk-caller-key-1234567890';
/** A gateway credential (a config key): the keys the gateway holds serve only requests that bring one. */
const GATEWAY_KEY = 'cfg-router-key-0123456789';

describe('routing configs: where they come from, how they are checked', () => {
  let a: FakeUpstream;
  let b: FakeUpstream;
  let gw: TestGateway;
  const calls = (f: FakeUpstream) => f.received(UPSTREAM_CHAT).length;

  beforeAll(async () => {
    [a, b] = await Promise.all([new FakeUpstream().start(), new FakeUpstream().start()]);
    gw = await startGateway({
      providers: { openai: { baseUrl: `${a.url}/v1` }, groq: { baseUrl: `${b.url}/v1`, apiKey: 'gsk-groq-configured-key-01' } },
      guardrails: { 'no-pii': { checks: [{ type: 'pii' }] } },
      configs: {
        resilient: {
          strategy: { mode: 'fallback' },
          targets: [
            { provider: 'openai', api_key: 'sk-config-key-a-123456' },
            { provider: 'groq', api_key: 'gsk-config-key-b-123456' },
          ],
        },
        'groq-only': { provider: 'groq', api_key: 'gsk-config-key-b-123456' },
      },
      routing: { defaultConfig: 'groq-only' },
      auth: { apiKeys: [{ key: GATEWAY_KEY, user: 'router@example.com' }] },
    });
  });
  afterAll(async () => {
    await gw?.close();
    await Promise.all([a?.stop(), b?.stop()]);
  });
  beforeEach(() => {
    a.requests.length = 0;
    b.requests.length = 0;
    a.on(UPSTREAM_CHAT, answers('from A'));
    b.on(UPSTREAM_CHAT, answers('from B'));
  });

  const header = (config: unknown) => ({
    'x-gateway-config': typeof config === 'string' ? config : JSON.stringify(config),
    'x-gateway-api-key': KEY,
    'x-gateway-token': GATEWAY_KEY,
  });

  it('uses a named config, with the keys it holds', async () => {
    a.on(UPSTREAM_CHAT, upstreamError(503));
    const res = await post(gw.url, CHAT, chatBody(), { 'x-gateway-config': 'resilient', 'x-gateway-token': GATEWAY_KEY });
    expect(res.status).toBe(200);
    expect(answerText(res)).toBe('from B');
    expect(res.headers['x-gateway-target-index']).toBe('1');
    expect(a.received(UPSTREAM_CHAT)[0]!.headers.authorization).toBe('Bearer sk-config-key-a-123456');
    expect(b.received(UPSTREAM_CHAT)[0]!.headers.authorization).toBe('Bearer gsk-config-key-b-123456');
  });

  it('uses routing.defaultConfig when the request sends no config (and no provider header)', async () => {
    const res = await post(gw.url, CHAT, chatBody(), { 'x-gateway-token': GATEWAY_KEY });
    expect(res.status).toBe(200);
    expect(answerText(res)).toBe('from B');
    expect(res.headers['x-gateway-provider']).toBe('groq');
    expect(res.headers['x-gateway-target-index']).toBe('0');
    expect([calls(a), calls(b)]).toEqual([0, 1]);
  });

  it('takes a JSON config from the header; a target without api_key uses the request key', async () => {
    const res = await post(gw.url, CHAT, chatBody(), header({ provider: 'openai' }));
    expect(res.status).toBe(200);
    expect(answerText(res)).toBe('from A');
    expect(res.headers['x-gateway-target-index']).toBe('0');
    expect(a.received(UPSTREAM_CHAT)[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it('lets targets without a provider use x-gateway-provider', async () => {
    const res = await post(gw.url, CHAT, chatBody(), { ...header({ retry: { attempts: 1 } }), 'x-gateway-provider': 'openai' });
    expect(res.status).toBe(200);
    expect(answerText(res)).toBe('from A');
  });

  it('refuses a target with no provider anywhere', async () => {
    const res = await post(gw.url, CHAT, chatBody(), header({ strategy: { mode: 'fallback' }, targets: [{ provider: 'openai' }, { api_key: 'x' }] }));
    a.on(UPSTREAM_CHAT, upstreamError(500));
    expect(res.status).toBe(200);
    const failing = await post(gw.url, CHAT, chatBody(), header({ strategy: { mode: 'fallback' }, targets: [{ provider: 'openai' }, { api_key: 'x' }] }));
    expect(failing.status).toBe(400);
    expect(failing.json.error).toMatchObject({ param: 'x-gateway-config', code: 'missing_required_parameter' });
    expect(failing.json.error.message).toMatch(/^x-gateway-config: targets\[1\]\.provider: this target has no provider/);
  });

  it.each([
    ['{not json', /^x-gateway-config: is not valid JSON/],
    ['{"targets": [{"provider": "openai"}, {"provider": "groq", "retry": {"attempts": 9}}]}', /^x-gateway-config: targets\[1\]\.retry\.attempts: must be <= 5$/],
    ['{"strategy": {"mode": "roundrobin"}, "targets": [{"provider": "openai"}]}', /^x-gateway-config: strategy\.mode: must be one of single, fallback, loadbalance, conditional$/],
    ['{"provider": "openai", "colour": "red"}', /^x-gateway-config: colour: is not a known key$/],
    ['{"targets": [{"provider": "nope"}]}', /^x-gateway-config: targets\[0\]\.provider: unknown provider "nope" \(known: .*openai/],
    ['{"provider": "openai", "custom_host": "http://127.0.0.1:1"}', /^x-gateway-config: custom_host: is not allowed: this gateway does not set routing.allowCustomHost$/],
    ['{"provider": "openai", "input_guardrails": ["no-pii", "nope"]}', /^x-gateway-config: input_guardrails\[1\]: names no guardrail \(guardrails\.nope is not defined\)$/],
    // The operator's config names are never listed to a caller.
    ['unknown-config', /^x-gateway-config: no config named "unknown-config"; send a JSON object or the name of a config\.$/],
  ])('answers 400 naming the problem for %s', async (value, message) => {
    const res = await post(gw.url, CHAT, chatBody(), header(value));
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ status: 'failure', error: { type: 'invalid_request_error', code: 'missing_required_parameter', param: 'x-gateway-config' } });
    expect(res.json.error.message).toMatch(message);
    expect([calls(a), calls(b)]).toEqual([0, 0]);
  });

  it('lists several problems of one header config together', async () => {
    const res = await post(
      gw.url,
      CHAT,
      chatBody(),
      header({
        targets: [
          { provider: 'openai', weight: -1 },
          { provider: 'groq', request_timeout: 0 },
        ],
      }),
    );
    expect(res.status).toBe(400);
    expect(res.json.error.message).toBe('x-gateway-config: targets[0].weight: must be >= 0; x-gateway-config: targets[1].request_timeout: must be >= 1');
  });

  it('loadbalance: a failed choice is answered unless on_status_codes is given', async () => {
    a.on(UPSTREAM_CHAT, upstreamError(500));
    const lb = { strategy: { mode: 'loadbalance' }, targets: [{ provider: 'openai' }, { provider: 'groq' }] };
    const statuses: number[] = [];
    for (let i = 0; i < 40; i++) statuses.push((await post(gw.url, CHAT, chatBody(), header(lb))).status);
    expect(statuses.filter((s) => s === 502).length).toBe(calls(a));
    expect(statuses.filter((s) => s === 200).length).toBe(calls(b));
    expect(calls(a)).toBeGreaterThan(0);
    expect(calls(a) + calls(b)).toBe(40);

    a.requests.length = 0;
    b.requests.length = 0;
    const withCodes = { ...lb, strategy: { mode: 'loadbalance', on_status_codes: [500] } };
    for (let i = 0; i < 20; i++) expect((await post(gw.url, CHAT, chatBody(), header(withCodes))).status).toBe(200);
    expect(calls(b)).toBe(20);
  });

  it('loadbalance spreads requests by weight', async () => {
    const lb = {
      strategy: { mode: 'loadbalance' },
      targets: [
        { provider: 'openai', weight: 3 },
        { provider: 'groq', weight: 1 },
        { provider: 'groq', weight: 0 },
      ],
    };
    const indexes: Record<string, number> = {};
    for (let i = 0; i < 200; i++) {
      const res = await post(gw.url, CHAT, chatBody(), header(lb));
      const index = String(res.headers['x-gateway-target-index']);
      indexes[index] = (indexes[index] ?? 0) + 1;
    }
    // Expected 150 / 50; the band is about 4 standard deviations wide.
    expect(indexes['0']).toBeGreaterThan(125);
    expect(indexes['0']).toBeLessThan(175);
    expect(indexes['0']! + indexes['1']!).toBe(200);
    expect(indexes['2']).toBeUndefined();
    expect([calls(a), calls(b)]).toEqual([indexes['0'], indexes['1']]);
  });

  describe('conditional routing', () => {
    const conditional = {
      strategy: {
        mode: 'conditional',
        conditions: [
          { query: { 'metadata.tier': { $eq: 'pro' } }, then: 'pro' },
          { query: { $and: [{ 'params.model': { $regex: '^llama' } }, { 'params.max_tokens': { $lte: 100 } }] }, then: 'cheap' },
        ],
        default: 'basic',
      },
      targets: [
        { name: 'basic', provider: 'openai', override_params: { model: 'basic-model' } },
        { name: 'pro', provider: 'openai', override_params: { model: 'pro-model' } },
        { name: 'cheap', provider: 'groq' },
      ],
    };

    it('routes on x-gateway-metadata', async () => {
      const res = await post(gw.url, CHAT, chatBody(), { ...header(conditional), 'x-gateway-metadata': JSON.stringify({ tier: 'pro' }) });
      expect(res.headers['x-gateway-target-index']).toBe('1');
      expect(a.received(UPSTREAM_CHAT)[0]!.json().model).toBe('pro-model');
    });

    it('routes on body params', async () => {
      const res = await post(gw.url, CHAT, chatBody({ model: 'llama-3', max_tokens: 50 }), header(conditional));
      expect(res.headers['x-gateway-target-index']).toBe('2');
      expect(res.headers['x-gateway-provider']).toBe('groq');
      expect([calls(a), calls(b)]).toEqual([0, 1]);
    });

    it('uses the default when nothing matches', async () => {
      const res = await post(gw.url, CHAT, chatBody({ model: 'llama-3', max_tokens: 500 }), { ...header(conditional), 'x-gateway-metadata': '{"tier":"free"}' });
      expect(res.headers['x-gateway-target-index']).toBe('0');
      expect(a.received(UPSTREAM_CHAT)[0]!.json().model).toBe('basic-model');
    });

    it('answers 400 when nothing matches and there is no default, or the metadata is not a JSON object', async () => {
      const { default: _, ...strategy } = conditional.strategy;
      const res = await post(gw.url, CHAT, chatBody(), header({ ...conditional, strategy }));
      expect(res.status).toBe(400);
      expect(res.json.error.message).toBe('x-gateway-config: strategy: no condition matched this request and the config has no default.');
      const bad = await post(gw.url, CHAT, chatBody(), { ...header(conditional), 'x-gateway-metadata': '[1,2]' });
      expect(bad.status).toBe(400);
      expect(bad.json.error.param).toBe('x-gateway-metadata');
      expect([calls(a), calls(b)]).toEqual([0, 0]);
    });
  });
});

describe('routing configs checked at start-up', () => {
  it('refuses named configs with unknown providers, guardrails, bad custom hosts, forwarded headers or conditions, one line each', async () => {
    const err = await startGateway({
      guardrails: { ok: { checks: [{ type: 'pii' }] } },
      configs: {
        bad: {
          strategy: { mode: 'conditional', conditions: [{ query: { 'metadata.a': { $near: 1 } }, then: 'x' }] },
          targets: [{ name: 'x', provider: 'nope', output_guardrails: ['ok', 'missing'], custom_host: 'ftp://h', forward_headers: ['x-trace', 'Host', 'x-org'] }],
        },
      },
      providers: { openai: { headers: { 'X-Org': 'org-secret-1' } } },
    }).catch((e) => e);
    expect(err.problems).toEqual([
      'configs.bad.targets[0].provider: unknown provider "nope" (known: ' + err.problems[0].split('(known: ')[1],
      'configs.bad.targets[0].custom_host: must be an http(s) URL',
      'configs.bad.targets[0].forward_headers[1]: host is never forwarded (the gateway addresses the provider itself)',
      'configs.bad.targets[0].forward_headers[2]: x-org is set by the operator (providers.<id>.headers), and is never forwarded',
      'configs.bad.targets[0].output_guardrails[1]: names no guardrail (guardrails.missing is not defined)',
      'configs.bad.strategy.conditions[0].query.metadata.a.$near: unknown operator $near (known: $eq $ne $in $nin $gt $gte $lt $lte $regex $and $or)',
    ]);
  });

  it('refuses a pipeline whose guardrail stage names an unknown guardrail, and bad guardrail definitions', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-pipelines-'));
    try {
      writeFileSync(
        join(dir, 'chat.yaml'),
        'name: chat\nroutes: ["POST /v1/chat/completions"]\nstages:\n  - normalize-error\n  - authenticate\n  - route\n  - fallback\n  - guardrail: { input: [ghost] }\n  - forward\n',
      );
      const err = await startGateway({ pipelines: { dir }, guardrails: { ok: { checks: [{ type: 'pii' }] } } }).catch((e) => e);
      expect(err.problems).toHaveLength(1);
      expect(err.problems[0]).toMatch(/chat\.yaml: stages\[4\]\.guardrail: input\[0\]: names no guardrail \(guardrails\.ghost is not defined\)$/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const bad = await startGateway({ guardrails: { g: { checks: [{ type: 'regex', pattern: '[' }] } } }).catch((e) => e);
    expect(bad.problems[0]).toMatch(/^guardrails\.g\.checks\[0\]\.pattern: is not a valid regular expression/);
  });
});
