// POST /v1/admin/credentials/{name}/test: a connection test of a held credential (the console's
// Test button), against a fake provider.
import type { ServerResponse } from 'node:http';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeUpstream, type ReceivedRequest } from '../../helpers/fake-upstream.js';
import { closedPort } from '../../helpers/closed-port.js';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';

const ADMIN = 'admin-token-credential-test-0123456789abcdef';
const VIEWER_KEY = 'cfg-credential-test-viewer-0123456789abcdef';
const GOOD = 'sk-held-good-credential-0001';
const BAD = 'sk-held-refused-credential-0002';
const API_HELD = 'sk-held-through-the-api-0003';

async function call(url: string, method: 'GET' | 'POST', path: string, token = ADMIN, body?: unknown) {
  const res = await request(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.body.text();
  return { status: res.statusCode, text, json: JSON.parse(text) };
}

describe('POST /v1/admin/credentials/{name}/test', () => {
  let upstream: FakeUpstream;
  let gw: TestGateway;
  let unreachablePort: number;

  beforeAll(async () => {
    upstream = await new FakeUpstream().start();
    // The provider's model list: the good key is listed two models, any other is refused as OpenAI refuses a key (quoting it).
    upstream.on('GET /v1/models', (req: ReceivedRequest, res: ServerResponse) => {
      const auth = String(req.headers.authorization ?? '');
      if (auth === `Bearer ${GOOD}` || auth === `Bearer ${API_HELD}`) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ object: 'list', data: [{ id: 'gpt-4o-mini' }, { id: 'gpt-4o' }] }));
        return;
      }
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `Incorrect API key provided: ${auth.slice(7)}`, type: 'invalid_request_error', code: 'invalid_api_key' } }));
    });
    unreachablePort = await closedPort();
    gw = await startGateway({
      logging: { level: 'info' },
      auth: { adminToken: ADMIN, apiKeys: [{ key: VIEWER_KEY, user: 'vera@example.com', roles: ['viewer'] }] },
      secrets: { key: 'cd'.repeat(32) },
      providers: { openai: { baseUrl: `${upstream.url}/v1` }, groq: { baseUrl: `http://127.0.0.1:${unreachablePort}/openai/v1` } },
      credentials: {
        good: { provider: 'openai', api_key: GOOD },
        refused: { provider: 'openai', api_key: BAD },
        unreachable: { provider: 'groq', api_key: GOOD },
      },
    });
  });
  afterAll(async () => {
    await gw?.close();
    await upstream?.stop();
  });

  it("calls the provider's model list with the held key at the provider's address: ok, status, latency, never the key", async () => {
    upstream.requests.length = 0;
    const res = await call(gw.url, 'POST', '/v1/admin/credentials/good/test');
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      object: 'admin.credential.test',
      name: 'good',
      provider: 'openai',
      ok: true,
      status: 200,
      error_type: null,
      models: 2,
      checked: 'GET /v1/models',
    });
    expect(typeof res.json.latency_ms).toBe('number');
    expect(upstream.received('GET /v1/models')).toHaveLength(1);
    expect(upstream.received('GET /v1/models')[0]!.headers.authorization).toBe(`Bearer ${GOOD}`);
    expect(res.text).not.toContain(GOOD);
  });

  it("a refused key is ok: false with the status and the error type, and not the upstream's message (which quotes the key)", async () => {
    const res = await call(gw.url, 'POST', '/v1/admin/credentials/refused/test');
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ ok: false, status: 401, error_type: 'invalid_api_key', models: null });
    expect(res.text).not.toContain(BAD);
    expect(res.text).not.toContain('Incorrect API key');
    expect(gw.logs.text).not.toContain(BAD);
  });

  it('an address nothing answers at is ok: false with no status (connection_error)', async () => {
    const res = await call(gw.url, 'POST', '/v1/admin/credentials/unreachable/test');
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ ok: false, status: null, error_type: 'connection_error' });
    expect(res.text).not.toContain(GOOD);
  });

  it('tests a credential made through the API too; an unknown name is 404; a viewer key is refused', async () => {
    expect((await call(gw.url, 'POST', '/v1/admin/credentials', ADMIN, { name: 'from-api', provider: 'openai', api_key: API_HELD })).status).toBe(201);
    const res = await call(gw.url, 'POST', '/v1/admin/credentials/from-api/test');
    expect(res.json).toMatchObject({ ok: true, status: 200 });
    expect(res.text).not.toContain(API_HELD);
    const missing = await call(gw.url, 'POST', '/v1/admin/credentials/nope/test');
    expect(missing.status).toBe(404);
    expect(missing.json.error.param).toBe('name');
    expect((await call(gw.url, 'POST', '/v1/admin/credentials/good/test', VIEWER_KEY)).status).toBe(403);
  });
});
