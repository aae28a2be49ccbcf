import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { FakeUpstream } from '../helpers/fake-upstream.js';
import { fixtureJson } from '../helpers/fixtures.js';
import { startGateway, type TestGateway } from '../helpers/start-gateway.js';
import { HttpToolServer } from '../helpers/http-tool-server.js';
import { connectClient, eventually, stdioToolServer, textOf } from '../helpers/mcp.js';

const KEY = 'sk-metrics-bounds-key-0001';
const GROQ_KEY = 'gsk-metrics-bounds-groq-0002';
const ADMIN = 'adm-9f1c2e7b5a4d3c8e1f0a6b9d2c7e4f1a';
const CONFIG_KEY = 'gk-metrics-bounds-config-key-0003';

/** Every sample of `name` in /metrics text, as label objects with their value. */
function samples(text: string, name: string): Array<{ labels: Record<string, string>; value: number }> {
  const out: Array<{ labels: Record<string, string>; value: number }> = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const inner = line.slice(name.length + 1, line.lastIndexOf('}'));
    const labels = Object.fromEntries([...inner.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1]!, m[2]!]));
    out.push({ labels, value: Number(line.slice(line.lastIndexOf(' ') + 1)) });
  }
  return out;
}

const value = (text: string, name: string, labels: Record<string, string>) =>
  samples(text, name).find((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value ?? 0;

describe('/metrics labels take only values the gateway knows', () => {
  let upstream: FakeUpstream;
  let flaky: FakeUpstream;
  let tools: HttpToolServer;
  let gw: TestGateway;
  const clients: Client[] = [];

  beforeAll(async () => {
    upstream = await new FakeUpstream().on('POST /v1/chat/completions', { json: fixtureJson('openai', 'chat') }).start();
    flaky = await new FakeUpstream().on('POST /v1/chat/completions', { json: { error: { message: 'down' } }, status: 503 }).start();
    tools = await new HttpToolServer().start();
    gw = await startGateway({
      providers: { openai: { baseUrl: `${upstream.url}/v1` }, groq: { baseUrl: `${flaky.url}/v1` } },
      routing: { circuitBreaker: { failureThreshold: 1, cooldown: '60s' } },
      configs: { pinned: { targets: [{ provider: 'openai', override_params: { model: 'gpt-4o-mini' } }] } },
      mcpServers: { tools: { url: tools.url }, local: stdioToolServer() },
    });
  });
  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    await gw?.close();
    await tools?.stop();
    await flaky?.stop();
    await upstream?.stop();
  });

  const scrape = async () => {
    const res = await fetch(`${gw.url}/metrics`);
    expect(res.status).toBe(200);
    return res.text();
  };
  const chat = (model: string, headers: Record<string, string> = {}) =>
    fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-gateway-provider': 'openai', 'x-gateway-api-key': KEY, ...headers },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'Hi' }] }),
    });

  it('stays small after five requests with 2 MB model names: they count as model "other"', async () => {
    // One ordinary request first, so that its series (route, histogram, tokens) exist before.
    const warm = await chat('a-model-nobody-configured');
    expect(warm.status).toBe(200);
    await warm.arrayBuffer();
    await scrape(); // the series of /metrics itself
    const before = await scrape();
    for (let i = 0; i < 5; i++) {
      const res = await chat(`${String(i)}${'m'.repeat(2 * 1024 * 1024)}`);
      expect(res.status).toBe(200);
      await res.arrayBuffer();
    }
    const after = await scrape();
    // Only counts and sums changed: no new gateway series.
    const series = (text: string) =>
      text
        .split('\n')
        .filter((l) => l.startsWith('gateway_'))
        .map((l) => l.slice(0, l.lastIndexOf(' ')));
    expect(series(after)).toEqual(series(before));
    expect(after.length).toBeLessThan(256 * 1024);
    expect(after).not.toContain('mmmmmmmmmm');
    expect(after).not.toContain('a-model-nobody-configured');
    // The fixture answers 9 input tokens per request.
    expect(value(after, 'gateway_tokens_total', { direction: 'input', provider: 'openai', model: 'other' })).toBe(6 * 9);
  });

  it('shows a model the config names by its name', async () => {
    const res = await chat('whatever-the-caller-says', { 'x-gateway-config': 'pinned' });
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    expect(value(await scrape(), 'gateway_tokens_total', { direction: 'input', provider: 'openai', model: 'gpt-4o-mini' })).toBe(9);
  });

  it('names circuits by provider and target, never by key hash or address', async () => {
    const res = await chat('llama', { 'x-gateway-provider': 'groq', 'x-gateway-api-key': GROQ_KEY });
    expect(res.status).toBe(502);
    await res.arrayBuffer();
    const text = await scrape();
    const circuits = samples(text, 'gateway_circuit_state');
    expect(circuits).toContainEqual({ labels: { provider: 'groq', target: 'header' }, value: 1 });
    for (const circuit of circuits) expect(Object.keys(circuit.labels).sort()).toEqual(['provider', 'target']);
    const circuitLines = text.split('\n').filter((l) => l.startsWith('gateway_circuit_state'));
    expect(circuitLines.join('\n')).not.toMatch(/127\.0\.0\.1|localhost|http|\|/);
  });

  it('counts made-up tool names as "unknown", and calls on /mcp/<server> by server and tool', async () => {
    const all = await connectClient(`${gw.url}/mcp`);
    const remote = await connectClient(`${gw.url}/mcp/tools`);
    const local = await connectClient(`${gw.url}/mcp/local`);
    clients.push(all, remote, local);
    const before = await scrape();
    const count = (text: string, labels: Record<string, string>) => value(text, 'gateway_mcp_calls_total', labels);

    for (let i = 0; i < 3; i++) await all.callTool({ name: `tools__made-up-${i}-${'x'.repeat(64)}`, arguments: {} }).catch(() => undefined);
    await remote.callTool({ name: 'no-such-tool', arguments: {} }).catch(() => undefined);
    expect(textOf(await remote.callTool({ name: 'echo', arguments: { text: 'one' } }))).toBe('echo: one');
    expect(textOf(await local.callTool({ name: 'echo', arguments: { text: 'two' } }))).toContain('two');

    const after: string = await eventually(
      async () => {
        const text = await scrape();
        return count(text, { server: 'local', tool: 'echo', outcome: 'ok' }) === count(before, { server: 'local', tool: 'echo', outcome: 'ok' }) + 1 ? text : '';
      },
      5000,
      'the /mcp/local call to be counted',
    );
    expect(count(after, { server: 'tools', tool: 'echo', outcome: 'ok' }) - count(before, { server: 'tools', tool: 'echo', outcome: 'ok' })).toBe(1);
    const unknown = samples(after, 'gateway_mcp_calls_total').filter((s) => s.labels.tool === 'unknown');
    const unknownBefore = samples(before, 'gateway_mcp_calls_total').filter((s) => s.labels.tool === 'unknown');
    expect(unknown.reduce((n, s) => n + s.value, 0) - unknownBefore.reduce((n, s) => n + s.value, 0)).toBe(4);
    expect(after).not.toContain('made-up');
    expect(after).not.toContain('no-such-tool');
  });
});

describe('metrics.auth', () => {
  const gateways: TestGateway[] = [];
  afterAll(async () => {
    for (const gw of gateways) await gw.close();
  });
  const start = async (config: Record<string, unknown>) => {
    const gw = await startGateway(config);
    gateways.push(gw);
    return gw;
  };

  it('none (the default): anyone reads /metrics', async () => {
    const gw = await start({});
    const res = await fetch(`${gw.url}/metrics`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('gateway_requests_total');
  });

  it('admin: 401 with WWW-Authenticate without the admin token, 200 with it', async () => {
    const gw = await start({ auth: { adminToken: ADMIN }, metrics: { auth: 'admin' } });
    const none = await fetch(`${gw.url}/metrics`);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer /);
    expect(await none.json()).toMatchObject({ status: 'failure', error: { type: 'authentication_error', code: 'invalid_api_key' } });
    const wrong = await fetch(`${gw.url}/metrics`, { headers: { authorization: `Bearer ${CONFIG_KEY}` } });
    expect(wrong.status).toBe(401);
    const ok = await fetch(`${gw.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN}` } });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain('gateway_requests_total');
    // Health and readiness stay open to probes.
    expect((await fetch(`${gw.url}/health`)).status).toBe(200);
  });

  it('gateway: 401 without a gateway credential, 200 with a config key (x-gateway-token or bearer)', async () => {
    const gw = await start({ auth: { apiKeys: [{ key: CONFIG_KEY, user: 'scraper@example.com' }] }, metrics: { auth: 'gateway' } });
    const none = await fetch(`${gw.url}/metrics`);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer /);
    const body = await none.json();
    expect(body).toMatchObject({ status: 'failure', error: { type: 'authentication_error', code: 'invalid_api_key' } });
    const wrong = await fetch(`${gw.url}/metrics`, { headers: { 'x-gateway-token': 'gk-not-a-key-of-this-gateway' } });
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).not.toContain('gk-not-a-key-of-this-gateway');
    expect((await fetch(`${gw.url}/metrics`, { headers: { 'x-gateway-token': CONFIG_KEY } })).status).toBe(200);
    expect((await fetch(`${gw.url}/metrics`, { headers: { authorization: `Bearer ${CONFIG_KEY}` } })).status).toBe(200);
  });
});
