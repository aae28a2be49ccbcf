import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, spawnGateway, waitForHealth, type GatewayProcess } from '../../helpers/built-gateway.js';
import { FakeUpstream } from '../../helpers/fake-upstream.js';
import { answers, CHAT, chatBody, post, UPSTREAM_CHAT } from '../../helpers/routing-harness.js';

const KEY = 'sk-caller-key-1234567890';
const EVIL_MODEL = `${'a'.repeat(34)}!`;

/** A routing config whose only condition is `$regex` on the model. */
const conditional = (pattern: string) =>
  JSON.stringify({
    strategy: { mode: 'conditional', conditions: [{ query: { 'params.model': { $regex: pattern } }, then: 'match' }], default: 'other' },
    targets: [
      { name: 'match', provider: 'openai', override_params: { model: 'matched' } },
      { name: 'other', provider: 'openai' },
    ],
  });

/** The median of `n` /health answers' times, one after another (statuses must all be 200). */
async function medianHealth(url: string, n = 5): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const h = await healthLatency(url);
    expect(h.status).toBe(200);
    times.push(h.ms);
  }
  return times.sort((a, b) => a - b)[Math.floor(n / 2)]!;
}

async function healthLatency(url: string): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  const res = await request(`${url}/health`);
  await res.body.text();
  return { status: res.statusCode, ms: performance.now() - started };
}

/** Caller patterns (x-gateway-config) against the built gateway in its own process, through real sockets. */
describe("a caller's regular expressions cannot stall the gateway", { timeout: 120_000 }, () => {
  let upstream: FakeUpstream;
  let gw: GatewayProcess;
  let url: string;
  let dir: string;

  beforeAll(async () => {
    upstream = await new FakeUpstream().start();
    upstream.on(UPSTREAM_CHAT, answers('from upstream'));
    dir = mkdtempSync(join(tmpdir(), 'gw-regex-'));
    const port = await freePort();
    const config = join(dir, 'gateway.yaml');
    writeFileSync(config, `server:\n  host: 127.0.0.1\n  port: ${port}\nproviders:\n  openai:\n    baseUrl: ${upstream.url}/v1\n`);
    gw = spawnGateway(['--config', config], { env: { GATEWAY_DATA_DIR: join(dir, 'data') } });
    url = `http://127.0.0.1:${port}`;
    await waitForHealth(url, gw);
  }, 240_000);
  afterAll(async () => {
    gw?.kill();
    await gw?.exited;
    await upstream?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers ^(a+)+$ against 34 a and ! normally while /health answers within 50 ms', async () => {
    // Warm up: the linear-time engine loads on the first caller pattern.
    expect((await post(url, CHAT, chatBody(), { 'x-gateway-config': conditional('^gpt'), 'x-gateway-api-key': KEY })).status).toBe(200);
    upstream.requests.length = 0;

    // The delay is /health's time with the hostile requests in flight over its time without them
    // (medians of five, so one slow scheduling slice of a busy machine does not decide it).
    const baseline = await medianHealth(url);
    const evil = () => post(url, CHAT, chatBody({ model: EVIL_MODEL }), { 'x-gateway-config': conditional('^(a+)+$'), 'x-gateway-api-key': KEY });
    const chats = Promise.all([evil(), evil(), evil()]);
    const during = await medianHealth(url);
    const answers = await chats;
    expect(during - baseline).toBeLessThan(50);
    for (const answer of answers) expect(answer.status).toBe(200);
    // No match: the default target got the caller's model unchanged.
    expect(upstream.received(UPSTREAM_CHAT).map((r) => r.json().model)).toEqual([EVIL_MODEL, EVIL_MODEL, EVIL_MODEL]);

    const matched = await post(url, CHAT, chatBody({ model: 'a'.repeat(34) }), { 'x-gateway-config': conditional('^(a+)+$'), 'x-gateway-api-key': KEY });
    expect(matched.status).toBe(200);
    expect(upstream.received(UPSTREAM_CHAT)[3]!.json().model).toBe('matched');
  });

  it.each([
    ['(a)\\1', /backreference/],
    ['^(?=gpt)', /lookahead or lookbehind/],
    ['([a-z]', /not a valid regular expression/],
  ])('refuses %s with a 400 in the contract body naming the key', async (pattern, why) => {
    upstream.requests.length = 0;
    const res = await post(url, CHAT, chatBody(), { 'x-gateway-config': conditional(pattern), 'x-gateway-api-key': KEY });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({
      status: 'failure',
      error: { type: 'invalid_request_error', code: 'missing_required_parameter', param: 'x-gateway-config' },
    });
    const body = res.json as { message: string; error: { message: string } };
    expect(body.error.message).toContain('strategy.conditions[0].query.params.model.$regex');
    expect(body.error.message).toMatch(why);
    expect(body.message).toBe(body.error.message);
    expect(upstream.received(UPSTREAM_CHAT)).toHaveLength(0);
  });

  it('--check refuses a config file whose operator patterns can backtrack catastrophically, naming each key', async () => {
    const check = async (name: string, lines: string[]) => {
      const path = join(dir, name);
      writeFileSync(path, `${lines.join('\n')}\n`);
      const proc = spawnGateway(['--check', '--config', path], { env: { GATEWAY_DATA_DIR: join(dir, 'check-data') } });
      const { code } = await proc.exited;
      return { code, out: proc.stdout() + proc.stderr() };
    };
    const routing = await check('bad-config.yaml', [
      'configs:',
      '  tiers:',
      '    strategy:',
      '      mode: conditional',
      "      conditions: [{ query: { 'params.model': { $regex: '^(a+)+$' } }, then: a }]",
      '    targets: [{ name: a, provider: openai }]',
    ]);
    expect(routing.code).toBe(1);
    expect(routing.out).toMatch(/configs\.tiers\.strategy\.conditions\[0\]\.query\.params\.model\.\$regex: may backtrack catastrophically/);
    const guardrails = await check('bad-guardrails.yaml', [
      'guardrails:',
      '  shape:',
      "    checks: [{ type: regex, pattern: '(a|ab)*c' }]",
      '  schema:',
      "    checks: [{ type: jsonSchema, schema: { type: string, pattern: '^(\\w+\\s?)*$' } }]",
    ]);
    expect(guardrails.code).toBe(1);
    expect(guardrails.out).toMatch(/guardrails\.shape\.checks\[0\]\.pattern: may backtrack catastrophically/);
    expect(guardrails.out).toMatch(/guardrails\.schema\.checks\[0\]\.schema: .*may backtrack catastrophically/);
    const good = await check('good.yaml', [
      'configs:',
      '  tiers:',
      '    strategy:',
      '      mode: conditional',
      "      conditions: [{ query: { 'params.model': { $regex: '^(gpt|o[0-9])-' } }, then: a }]",
      '    targets: [{ name: a, provider: openai }]',
    ]);
    expect(good).toMatchObject({ code: 0, out: 'ok\n' });
  });
});
