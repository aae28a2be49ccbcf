import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, fetch as undiciFetch, request } from 'undici';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';
import { FakeUpstream } from '../../helpers/fake-upstream.js';
import { HttpToolServer } from '../../helpers/http-tool-server.js';
import { makeTestCerts, type TestCerts } from '../../helpers/certs.js';
import { connectClient, textOf } from '../../helpers/mcp.js';

const listBody = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
const mcpHeaders = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

describe('TLS and mTLS', () => {
  let certs: TestCerts;
  let remote: HttpToolServer;
  let upstream: FakeUpstream;
  const agents: Agent[] = [];

  const agent = (client?: 'good' | 'foreign') => {
    const a = new Agent({
      connect: {
        ca: certs.read(certs.caCert),
        ...(client === 'good' ? { cert: certs.read(certs.clientCert), key: certs.read(certs.clientKey) } : {}),
        ...(client === 'foreign' ? { cert: certs.read(certs.foreignCert), key: certs.read(certs.foreignKey) } : {}),
      },
    });
    agents.push(a);
    return a;
  };
  const fetchWith = (dispatcher: Agent): FetchLike =>
    ((url: string | URL, init?: RequestInit) => undiciFetch(url, { ...(init as object), dispatcher } as never)) as unknown as FetchLike;

  beforeAll(async () => {
    certs = makeTestCerts();
    remote = await new HttpToolServer().start();
    upstream = await new FakeUpstream().on('GET /v1/models', { json: { object: 'list', data: [] } }).start();
  });
  afterAll(async () => {
    await Promise.all(agents.map((a) => a.close()));
    await remote?.stop();
    await upstream?.stop();
    certs?.cleanup();
  });

  describe('mtls with requireClientCert (default)', () => {
    let gw: TestGateway;
    beforeAll(async () => {
      gw = await startGateway({
        server: { ssl: { enabled: true, cert: certs.serverCert, key: certs.serverKey } },
        auth: { enabled: true, type: 'mtls', ca: certs.caCert },
        providers: { openai: { baseUrl: `${upstream.url}/v1` } },
        mcpServers: { remote: { url: remote.url } },
      });
    });
    afterAll(async () => gw?.close());

    it('serves HTTPS; a client certificate from the CA is the identity (CN, email SAN, OU)', async () => {
      expect(gw.url.startsWith('https://')).toBe(true);
      const client = await connectClient(`${gw.url}/mcp`, {}, fetchWith(agent('good')));
      const seen = JSON.parse(textOf(await client.callTool({ name: 'remote__whoami', arguments: {} })));
      expect(seen).toMatchObject({ name: 'Grace Hopper', email: 'grace@example.com', team: 'compilers' });
      await client.close();
    });

    it('refuses the TLS handshake without a certificate, or with one from another CA', async () => {
      await expect(request(`${gw.url}/mcp`, { method: 'POST', headers: mcpHeaders, body: listBody, dispatcher: agent() })).rejects.toThrow();
      await expect(request(`${gw.url}/mcp`, { method: 'POST', headers: mcpHeaders, body: listBody, dispatcher: agent('foreign') })).rejects.toThrow();
    });

    it('serves provider routes over HTTPS too', async () => {
      const res = await request(`${gw.url}/v1/models`, { headers: { 'x-gateway-provider': 'openai', 'x-gateway-api-key': 'sk-test-1234567890' }, dispatcher: agent('good') });
      expect(res.statusCode).toBe(200);
      expect(await res.body.json()).toEqual({ object: 'list', data: [], has_more: false, first_id: null, last_id: null });
    });
  });

  describe('mtls with requireClientCert: false', () => {
    let gw: TestGateway;
    beforeAll(async () => {
      gw = await startGateway({
        server: { ssl: { enabled: true, cert: certs.serverCert, key: certs.serverKey } },
        auth: { enabled: true, type: 'mtls', ca: certs.caCert, requireClientCert: false },
        mcpServers: { remote: { url: remote.url } },
      });
    });
    afterAll(async () => gw?.close());

    it('answers 401 with the challenge when no certificate or a foreign one is presented', async () => {
      for (const who of [undefined, 'foreign'] as const) {
        const res = await request(`${gw.url}/mcp`, { method: 'POST', headers: mcpHeaders, body: listBody, dispatcher: agent(who) });
        expect(res.statusCode, String(who)).toBe(401);
        expect(res.headers['www-authenticate']).toBe(`Bearer resource_metadata="${gw.url}/.well-known/oauth-protected-resource"`);
        expect(await res.body.json()).toMatchObject({ error: { type: 'authentication_error' } });
      }
    });

    it('lets a good certificate in', async () => {
      const res = await request(`${gw.url}/mcp`, { method: 'POST', headers: mcpHeaders, body: listBody, dispatcher: agent('good') });
      expect(res.statusCode).toBe(200);
      await res.body.text();
    });
  });

  describe('HTTPS with bearer auth', () => {
    let gw: TestGateway;
    beforeAll(async () => {
      gw = await startGateway({
        server: { ssl: { enabled: true, cert: certs.serverCert, key: certs.serverKey } },
        auth: { enabled: true, type: 'bearer', adminToken: 'admin-token-0123456789abcdef0123456789' },
        mcpServers: { remote: { url: remote.url } },
      });
    });
    afterAll(async () => gw?.close());

    it('issues and uses a token over HTTPS', async () => {
      const dispatcher = agent();
      const created = await request(`${gw.url}/v1/auth/tokens`, {
        method: 'POST',
        headers: { authorization: 'Bearer admin-token-0123456789abcdef0123456789', 'content-type': 'application/json' },
        body: '{"user":"tls-user"}',
        dispatcher,
      });
      expect(created.statusCode).toBe(201);
      const { token } = (await created.body.json()) as { token: string };
      const client = await connectClient(`${gw.url}/mcp`, { Authorization: `Bearer ${token}` }, fetchWith(dispatcher));
      expect(textOf(await client.callTool({ name: 'remote__echo', arguments: { text: 'secure' } }))).toBe('echo: secure');
      await client.close();
    });
  });
});
