import { connect } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeUpstream } from '../../helpers/fake-upstream.js';
import { fixtureJson } from '../../helpers/fixtures.js';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';
import { answers, CHAT, chatBody, post, UPSTREAM_CHAT, type Answer } from '../../helpers/routing-harness.js';

const OPENAI_HELD = 'sk-held-by-the-gateway-openai-0001';
const GROQ_HELD = 'gsk-held-by-the-gateway-groq-0002';
const CONFIG_HELD = 'sk-held-in-configs-named-0003';
const ORG_SECRET = 'org-operator-header-secret-0004';
const GATEWAY_KEY = 'cfg-held-keys-gateway-credential-0005';
const CALLER_KEY = 'sk-the-callers-own-key-0006';

const config = (value: unknown) => JSON.stringify(value);

function expectRefused(res: Answer, provider: string): void {
  expect(res.status).toBe(401);
  expect(res.json).toMatchObject({ status: 'failure', error: { type: 'authentication_error', code: 'invalid_api_key', provider } });
  expect(res.json.error.message).toContain(provider);
  for (const secret of [OPENAI_HELD, GROQ_HELD, CONFIG_HELD, ORG_SECRET]) expect(res.text).not.toContain(secret);
}

/**
 * Contract sections 3, 4 and 8: a key the gateway holds (providers.<id>.apiKey, the keys of
 * configs.<name>) serves only requests that bring a gateway credential, and never goes to an
 * address a caller chose; operator configs may set custom_host without routing.allowCustomHost;
 * forward_headers never forwards host, hop-by-hop, gateway-set or operator headers; and
 * x-gateway-provider wins over routing.defaultConfig.
 */
describe('keys the gateway holds', () => {
  let openai: FakeUpstream;
  let groq: FakeUpstream;
  let anthropic: FakeUpstream;
  let operatorHost: FakeUpstream;
  let gw: TestGateway;
  const all = () => [openai, groq, anthropic, operatorHost];

  beforeAll(async () => {
    [openai, groq, anthropic, operatorHost] = await Promise.all([0, 1, 2, 3].map(() => new FakeUpstream().start()));
    gw = await startGateway({
      logging: { level: 'warn' },
      providers: {
        openai: { baseUrl: `${openai.url}/v1`, apiKey: OPENAI_HELD, headers: { 'X-Org-Secret': ORG_SECRET } },
        groq: { baseUrl: `${groq.url}/v1`, apiKey: GROQ_HELD },
        anthropic: { baseUrl: anthropic.url },
      },
      configs: {
        held: { provider: 'openai', api_key: CONFIG_HELD },
        'groq-default': { provider: 'groq' },
        'own-host': { provider: 'openai', custom_host: `${operatorHost.url}/v1` },
      },
      routing: { defaultConfig: 'groq-default' },
      auth: { apiKeys: [{ key: GATEWAY_KEY, user: 'tenant@example.com' }] },
    });
  });
  afterAll(async () => {
    await gw?.close();
    await Promise.all(all().map((f) => f?.stop()));
  });
  beforeEach(() => {
    for (const f of all()) {
      f.requests.length = 0;
      f.on(UPSTREAM_CHAT, answers('answered'));
    }
    anthropic.on('POST /v1/messages', { json: fixtureJson('anthropic', 'text') });
  });

  describe('a request with no gateway credential', () => {
    it('cannot spend providers.<id>.apiKey through a header config: 401 naming the provider, nothing sent', async () => {
      const res = await post(gw.url, CHAT, chatBody(), { 'x-gateway-config': config({ targets: [{ provider: 'openai' }] }) });
      expectRefused(res, 'openai');
      expect(res.json.error.message).toContain('gateway credential');
      expect(openai.requests).toEqual([]);
    });

    it('cannot spend the key a named config holds', async () => {
      const res = await post(gw.url, CHAT, chatBody(), { 'x-gateway-config': 'held' });
      expectRefused(res, 'openai');
      expect(openai.requests).toEqual([]);
    });

    it('cannot spend it through routing.defaultConfig either', async () => {
      const res = await post(gw.url, CHAT, chatBody(), {});
      expectRefused(res, 'groq');
      expect(groq.requests).toEqual([]);
    });

    it("with a provider key of its own, still cannot spend another provider's held key", async () => {
      const res = await post(gw.url, CHAT, chatBody(), {
        'x-gateway-provider': 'groq',
        'x-gateway-api-key': CALLER_KEY,
        'x-gateway-config': config({ targets: [{ provider: 'openai' }] }),
      });
      expectRefused(res, 'openai');
      expect(openai.requests).toEqual([]);
      expect(groq.requests).toEqual([]);
    });

    it('is served by a header config with the key it brings', async () => {
      const res = await post(gw.url, CHAT, chatBody(), { 'x-gateway-api-key': CALLER_KEY, 'x-gateway-config': config({ targets: [{ provider: 'openai' }] }) });
      expect(res.status).toBe(200);
      expect(openai.received(UPSTREAM_CHAT)[0]!.headers.authorization).toBe(`Bearer ${CALLER_KEY}`);
    });
  });

  describe('a request with a gateway credential', () => {
    const token = { 'x-gateway-token': GATEWAY_KEY };

    it('is served with providers.<id>.apiKey', async () => {
      const res = await post(gw.url, CHAT, chatBody(), { ...token, 'x-gateway-config': config({ targets: [{ provider: 'openai' }] }) });
      expect(res.status).toBe(200);
      expect(openai.received(UPSTREAM_CHAT)[0]!.headers.authorization).toBe(`Bearer ${OPENAI_HELD}`);
    });

    it('is served with the key of a named config, and by routing.defaultConfig', async () => {
      expect((await post(gw.url, CHAT, chatBody(), { ...token, 'x-gateway-config': 'held' })).status).toBe(200);
      expect(openai.received(UPSTREAM_CHAT)[0]!.headers.authorization).toBe(`Bearer ${CONFIG_HELD}`);
      expect((await post(gw.url, CHAT, chatBody(), token)).status).toBe(200);
      expect(groq.received(UPSTREAM_CHAT)[0]!.headers.authorization).toBe(`Bearer ${GROQ_HELD}`);
    });

    it("reaches an operator config's custom_host without routing.allowCustomHost, with the operator's key", async () => {
      const res = await post(gw.url, CHAT, chatBody(), { ...token, 'x-gateway-config': 'own-host' });
      expect(res.status).toBe(200);
      const sent = operatorHost.received(UPSTREAM_CHAT)[0]!;
      expect(sent.headers.authorization).toBe(`Bearer ${OPENAI_HELD}`);
      expect(openai.requests).toEqual([]);
    });
  });

  it('still refuses a caller custom_host without routing.allowCustomHost', async () => {
    const res = await post(gw.url, CHAT, chatBody(), {
      'x-gateway-token': GATEWAY_KEY,
      'x-gateway-config': config({ provider: 'openai', custom_host: `${operatorHost.url}/v1` }),
    });
    expect(res.status).toBe(400);
    expect(res.json.error.message).toContain('custom_host: is not allowed');
    expect(operatorHost.requests).toEqual([]);
  });

  describe('forward_headers', () => {
    it.each([
      ['host', 'host is never forwarded'],
      ['Host', 'host is never forwarded'],
      ['connection', 'connection is set by the gateway or describes one connection'],
      ['Transfer-Encoding', 'transfer-encoding is set by the gateway'],
      ['proxy-authorization', 'proxy-authorization is set by the gateway'],
      ['authorization', 'authorization is set by the gateway'],
      ['x-api-key', 'x-api-key is set by the gateway'],
      ['x-gateway-token', 'x-gateway-token is set by the gateway'],
      ['x-org-secret', 'x-org-secret is set by the operator (providers.<id>.headers)'],
      ['bad name', 'is not a header name'],
    ])('refuses %s with a 400 naming the parameter, sending nothing', async (name, message) => {
      const res = await post(gw.url, CHAT, chatBody(), {
        'x-gateway-api-key': CALLER_KEY,
        'x-gateway-config': config({ provider: 'openai', forward_headers: ['x-trace', name] }),
        host: 'evil.example',
        'x-org-secret': 'caller-value',
      });
      expect(res.status).toBe(400);
      expect(res.json).toMatchObject({ status: 'failure', error: { type: 'invalid_request_error', code: 'missing_required_parameter', param: 'x-gateway-config' } });
      expect(res.json.error.message).toContain(`forward_headers[1]: ${message}`);
      expect(openai.requests).toEqual([]);
    });

    it('forwards a harmless header, leaving the operator header alone', async () => {
      const res = await post(gw.url, CHAT, chatBody(), {
        'x-gateway-api-key': CALLER_KEY,
        'x-gateway-config': config({ provider: 'openai', forward_headers: ['x-trace'] }),
        'x-trace': 'trace-7',
        'x-org-secret': 'caller-value',
      });
      expect(res.status).toBe(200);
      const sent = openai.received(UPSTREAM_CHAT)[0]!;
      expect(sent.headers['x-trace']).toBe('trace-7');
      expect(sent.headers['x-org-secret']).toBe(ORG_SECRET);
      expect(sent.headers.host).toBe(new URL(openai.url).host);
    });

    it('refuses a forwarded value a header cannot carry (control characters), sending nothing', async () => {
      const header = config({ provider: 'openai', forward_headers: ['x-trace'] });
      const body = JSON.stringify(chatBody());
      const status = await rawStatus(
        gw.url,
        `POST ${CHAT} HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\nx-gateway-api-key: ${CALLER_KEY}\r\nx-gateway-config: ${header}\r\nx-trace: a\u0001b\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
      );
      expect(status).toBe(400);
      expect(openai.requests).toEqual([]);
    });
  });

  describe('x-gateway-provider and routing.defaultConfig', () => {
    it('the named provider wins over the default config', async () => {
      const res = await post(gw.url, CHAT, chatBody({ model: 'claude-sonnet-4-5' }), {
        'x-gateway-provider': 'anthropic',
        'x-api-key': 'sk-ant-caller-0007',
        authorization: 'Bearer sk-ant-caller-0007',
      });
      expect(res.status).toBe(200);
      expect(res.headers['x-gateway-provider']).toBe('anthropic');
      expect(anthropic.received('POST /v1/messages')).toHaveLength(1);
      expect(anthropic.received('POST /v1/messages')[0]!.headers['x-api-key']).toBe('sk-ant-caller-0007');
      expect(groq.requests).toEqual([]);
    });

    it('without its key the request is a 401 for that provider, not served by the default config', async () => {
      const res = await post(gw.url, CHAT, chatBody(), { 'x-gateway-provider': 'anthropic', 'x-gateway-token': GATEWAY_KEY });
      expectRefused(res, 'anthropic');
      expect(groq.requests).toEqual([]);
      expect(anthropic.requests).toEqual([]);
    });

    it('an explicit x-gateway-config still applies', async () => {
      const res = await post(gw.url, CHAT, chatBody(), { 'x-gateway-provider': 'anthropic', 'x-gateway-token': GATEWAY_KEY, 'x-gateway-config': 'groq-default' });
      expect(res.status).toBe(200);
      expect(res.headers['x-gateway-provider']).toBe('groq');
    });
  });
});

describe('a caller custom_host (routing.allowCustomHost: true)', () => {
  let openai: FakeUpstream;
  let chosen: FakeUpstream;
  let gw: TestGateway;

  beforeAll(async () => {
    [openai, chosen] = await Promise.all([0, 1].map(() => new FakeUpstream().start()));
    gw = await startGateway({
      logging: { level: 'warn' },
      providers: { openai: { baseUrl: `${openai.url}/v1`, apiKey: OPENAI_HELD, headers: { 'X-Org-Secret': ORG_SECRET } } },
      routing: { allowCustomHost: true },
      auth: { apiKeys: [{ key: GATEWAY_KEY, user: 'tenant@example.com' }] },
    });
  });
  afterAll(async () => {
    await gw?.close();
    await Promise.all([openai, chosen].map((f) => f?.stop()));
  });
  beforeEach(() => {
    for (const f of [openai, chosen]) {
      f.requests.length = 0;
      f.on(UPSTREAM_CHAT, answers('answered'));
    }
  });

  it.each([
    ['with a gateway credential', { 'x-gateway-token': GATEWAY_KEY }],
    ['without one', {}],
  ])('never receives the key the gateway holds (%s): 401 naming the provider, nothing sent', async (_, extra) => {
    const res = await post(gw.url, CHAT, chatBody(), { ...extra, 'x-gateway-config': config({ provider: 'openai', custom_host: `${chosen.url}/v1` }) });
    expectRefused(res, 'openai');
    expect(chosen.requests).toEqual([]);
    expect(openai.requests).toEqual([]);
  });

  it("gets the caller's own key from its config, and none of the operator's headers", async () => {
    const res = await post(gw.url, CHAT, chatBody(), {
      'x-gateway-token': GATEWAY_KEY,
      'x-gateway-config': config({ provider: 'openai', custom_host: `${chosen.url}/v1`, api_key: CALLER_KEY }),
    });
    expect(res.status).toBe(200);
    const sent = chosen.received(UPSTREAM_CHAT)[0]!;
    expect(sent.headers.authorization).toBe(`Bearer ${CALLER_KEY}`);
    expect(sent.headers['x-org-secret']).toBeUndefined();
    expect(JSON.stringify(sent.headers)).not.toContain(OPENAI_HELD);
  });

  it("x-gateway-custom-host gets the request's own key and none of the operator's headers", async () => {
    const res = await post(gw.url, CHAT, chatBody(), { 'x-gateway-provider': 'openai', 'x-gateway-api-key': CALLER_KEY, 'x-gateway-custom-host': `${chosen.url}/v1` });
    expect(res.status).toBe(200);
    const sent = chosen.received(UPSTREAM_CHAT)[0]!;
    expect(sent.headers.authorization).toBe(`Bearer ${CALLER_KEY}`);
    expect(sent.headers['x-org-secret']).toBeUndefined();
    expect(openai.requests).toEqual([]);
  });

  it('the operator address still gets the operator headers', async () => {
    const res = await post(gw.url, CHAT, chatBody(), { 'x-gateway-provider': 'openai', 'x-gateway-api-key': CALLER_KEY });
    expect(res.status).toBe(200);
    expect(openai.received(UPSTREAM_CHAT)[0]!.headers['x-org-secret']).toBe(ORG_SECRET);
  });
});

/** Sends raw bytes (headers undici would refuse to send) and reads the status line. */
function rawStatus(base: string, text: string): Promise<number> {
  const { port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    let got = '';
    socket.on('data', (c: Buffer) => (got += c.toString('latin1')));
    socket.on('error', reject);
    socket.on('close', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(got)?.[1] ?? 0)));
    socket.end(Buffer.from(text, 'latin1'));
  });
}
