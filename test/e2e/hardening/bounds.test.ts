import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { createServer, type Server } from 'node:http';
import pg from 'pg';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';
import { CHAT, chatBody, post } from '../../helpers/routing-harness.js';

const PG_URL = process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const ADMIN = 'bounds-admin-token-0123456789abcdef0123';

async function createToken(url: string, body: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`${url}/v1/auth/tokens`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

/** Raw bytes on a socket, the whole answer back (status and body). */
function raw(port: number, text: string): Promise<{ status?: number; headers: string; body: string }> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      const all = Buffer.concat(chunks).toString('latin1');
      const split = all.indexOf('\r\n\r\n');
      const m = /^HTTP\/1\.1 (\d{3})/.exec(all);
      resolve({ status: m ? Number(m[1]) : undefined, headers: all.slice(0, split), body: all.slice(split + 4) });
    });
    socket.end(Buffer.from(text, 'latin1'));
  });
}

const portOf = (url: string) => Number(new URL(url).port);

describe.each([['sqlite'], ['postgres']])('token lifetimes are bounded (%s)', (kind) => {
  const schema = `gw_bounds_${randomBytes(6).toString('hex')}`;
  let gw: TestGateway;
  beforeAll(async () => {
    const storage = kind === 'postgres' ? { type: 'postgres', url: PG_URL, schema } : undefined;
    gw = await startGateway({ auth: { enabled: true, type: 'bearer', adminToken: ADMIN }, logging: { level: 'warn' }, ...(storage ? { storage } : {}) });
  });
  afterAll(async () => {
    await gw?.close();
    if (kind === 'postgres') {
      const client = new pg.Client({ connectionString: PG_URL });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    }
  });

  it.each(['3651d', '87601h', '99999999999d', '999999999999999999999d', '0s'])('expiresIn %s is a 400 naming expiresIn', async (expiresIn) => {
    const res = await createToken(gw.url, { user: 'u', expiresIn });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ status: 'failure', error: { type: 'invalid_request_error', code: 'missing_required_parameter', param: 'expiresIn' } });
  });

  it('3650d is the longest lifetime, and is stored as it was asked', async () => {
    const before = Math.floor(Date.now() / 1000);
    const res = await createToken(gw.url, { user: 'u', expiresIn: '3650d' });
    expect(res.status).toBe(201);
    expect(res.json.expires_at - res.json.created_at).toBe(3650 * 86_400);
    expect(res.json.created_at).toBeGreaterThanOrEqual(before);
    const listed = (await (await fetch(`${gw.url}/v1/auth/tokens`, { headers: { authorization: `Bearer ${ADMIN}` } })).json()) as {
      data: Array<{ id: string; expires_at: number }>;
    };
    expect(listed.data.find((t) => t.id === res.json.id)!.expires_at).toBe(res.json.expires_at);
  });

  it('a NUL character in a field is a 400 naming it (never a 500 from the store)', async () => {
    for (const [field, body] of [
      ['user', { user: 'a\u0000b' }],
      ['team', { user: 'u', team: '\u0000' }],
      ['roles[0]', { user: 'u', roles: ['x\u0000'] }],
    ] as const) {
      const res = await createToken(gw.url, body);
      expect(res.status).toBe(400);
      expect(res.json.error.param).toBe(field);
    }
  });
});

describe('the default token lifetime (auth.tokenExpiration) is bounded like expiresIn', () => {
  it.each(['3651d', '87601h', '0s'])('auth.tokenExpiration %s stops start-up naming the key', async (tokenExpiration) => {
    const failed = await startGateway({ auth: { enabled: true, type: 'bearer', adminToken: ADMIN, tokenExpiration } }).then(
      async (gw) => {
        await gw.close();
        return undefined;
      },
      (err: { problems?: string[] }) => err,
    );
    expect(failed?.problems).toEqual(['auth.tokenExpiration: must be between 1s and 3650d']);
  });

  it('3650d is accepted, and a token issued without expiresIn lives that long', async () => {
    const gw = await startGateway({ auth: { enabled: true, type: 'bearer', adminToken: ADMIN, tokenExpiration: '3650d' }, logging: { level: 'warn' } });
    try {
      const res = await createToken(gw.url, { user: 'u' });
      expect(res.status).toBe(201);
      expect(res.json.expires_at - res.json.created_at).toBe(3650 * 86_400);
    } finally {
      await gw.close();
    }
  });
});

describe('requests Node cannot parse get the contract body', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startGateway({ logging: { level: 'warn' } });
  });
  afterAll(async () => gw?.close());

  it('headers too large: 431 with the contract body', async () => {
    const res = await raw(portOf(gw.url), `GET /health HTTP/1.1\r\nHost: x\r\nx-big: ${'a'.repeat(64 * 1024)}\r\n\r\n`);
    expect(res.status).toBe(431);
    expect(JSON.parse(res.body)).toMatchObject({
      status: 'failure',
      message: 'The request headers are too large.',
      error: { type: 'invalid_request_error', code: 'headers_too_large', param: 'headers' },
    });
    expect((await fetch(`${gw.url}/health`)).status).toBe(200);
  });

  it.each([
    ['a CR inside a header value', 'x-gateway-api-key: sk-abc\rdef'],
    ['a NUL inside a header value', 'x-gateway-api-key: sk-abc\u0000def'],
    ['a bare LF splitting a header', 'x-gateway-api-key: sk-abc\nx-injected: 1'],
  ])('%s: 400 with the contract body, never a 502', async (_name, line) => {
    const res = await raw(
      portOf(gw.url),
      `POST ${CHAT} HTTP/1.1\r\nHost: x\r\nx-gateway-provider: openai\r\n${line}\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}`,
    );
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toMatchObject({ status: 'failure', error: { type: 'invalid_request_error', code: 'missing_required_parameter', param: 'headers' } });
    expect((await fetch(`${gw.url}/health`)).status).toBe(200);
  });
});

describe('a TLS handshake with a plain-HTTP upstream', () => {
  let plain: Server;
  let gw: TestGateway;
  let hits = 0;
  beforeAll(async () => {
    plain = createServer((_req, res) => {
      hits++;
      res.end('{}');
    });
    await new Promise<void>((r) => plain.listen(0, '127.0.0.1', r));
    const port = (plain.address() as { port: number }).port;
    gw = await startGateway({ logging: { level: 'warn' }, providers: { openai: { baseUrl: `https://127.0.0.1:${port}/v1` } } });
  });
  afterAll(async () => {
    await gw?.close();
    await new Promise((r) => plain.close(r));
  });

  it('is a 502 provider_error whose cause is logged', async () => {
    const res = await post(gw.url, CHAT, chatBody(), { 'x-gateway-provider': 'openai', authorization: 'Bearer sk-tls-plain-0123456789' });
    expect(res.status).toBe(502);
    expect(res.json).toMatchObject({ status: 'failure', error: { type: 'provider_error', code: 'provider_error', provider: 'openai' } });
    expect(res.json.error.message).toMatch(/TLS handshake/);
    expect(hits).toBe(0);
    const line = gw.logs.records().find((r) => r.msg === 'upstream connection failed');
    expect(line).toMatchObject({ level: 40, provider: 'openai', cause: { code: expect.stringMatching(/^ERR_SSL_|^EPROTO$/) } });
    expect(gw.logs.text).not.toContain('sk-tls-plain-0123456789');
  });
});
