import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from 'node:net';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';

const ADMIN = 'edge-admin-token-0123456789abcdef01234';

/** Raw bytes on a socket (half-closed after `text` unless `keepOpen`), everything that came back as text. */
function raw(port: number, text: string, options: { keepOpen?: boolean; closeAfterMs?: number } = {}): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
    if (options.keepOpen) {
      socket.write(Buffer.from(text, 'latin1'));
      setTimeout(() => socket.end(), options.closeAfterMs ?? 200);
    } else socket.end(Buffer.from(text, 'latin1'));
  });
}

function statusAndBody(answer: string): { status: number; body: any } {
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1]);
  const text = answer.slice(answer.indexOf('\r\n\r\n') + 4);
  return { status, body: text ? JSON.parse(text) : undefined };
}

/**
 * What the HTTP edge answers before any stage runs: a path parameter that cannot be
 * percent-decoded, an Expect value the gateway does not know, a caller that closes in the
 * middle of its body. Raw sockets, as a client that does not behave would send them.
 */
describe('the HTTP edge on requests Node parses but no route can serve as sent', () => {
  let gw: TestGateway;
  let port: number;
  beforeAll(async () => {
    gw = await startGateway({ auth: { enabled: true, type: 'bearer', adminToken: ADMIN }, logging: { level: 'warn' } });
    port = Number(new URL(gw.url).port);
  });
  afterAll(async () => {
    await gw?.close();
  });

  it.each([
    ['GET /v1/files/%zz', 'x-gateway-provider: openai\r\nx-gateway-api-key: sk-edge-test-key-0001\r\n'],
    ['GET /v1/files/%E0%A4%A/content', 'x-gateway-provider: openai\r\nx-gateway-api-key: sk-edge-test-key-0001\r\n'],
    ['DELETE /v1/auth/tokens/%C3%28', `authorization: Bearer ${ADMIN}\r\n`],
    ['POST /mcp/%zz', 'content-type: application/json\r\ncontent-length: 2\r\n'],
    // A NUL names nothing the gateway keeps (a PostgreSQL store could not even be asked for it).
    ['DELETE /v1/admin/users/%00', `authorization: Bearer ${ADMIN}\r\n`],
    ['GET /v1/files/file-%00x', 'x-gateway-provider: openai\r\nx-gateway-api-key: sk-edge-test-key-0001\r\n'],
  ])('%s: a malformed percent-encoding or a NUL in the path is a 400 naming the path', async (line, headers) => {
    const body = line.startsWith('POST') ? '{}' : '';
    const answer = await raw(port, `${line} HTTP/1.1\r\nhost: 127.0.0.1\r\n${headers}connection: close\r\n\r\n${body}`);
    const { status, body: json } = statusAndBody(answer);
    expect(status).toBe(400);
    expect(json).toMatchObject({ status: 'failure', error: { type: 'invalid_request_error', code: 'missing_required_parameter', param: 'path' } });
    expect(json.message).toMatch(/percent-encoding or a NUL/);
  });

  it('an Expect value other than 100-continue is ignored: the request is served', async () => {
    const answer = await raw(port, 'GET /health HTTP/1.1\r\nhost: 127.0.0.1\r\nexpect: something-else\r\nconnection: close\r\n\r\n');
    expect(statusAndBody(answer).status).toBe(200);
  });

  it('a caller that closes in the middle of its body gets no second answer: refused before its body was read, it gets that answer only', async () => {
    // No x-gateway-provider: the 400 goes out before the body is read; the caller then closes its half mid-body.
    const answer = await raw(
      port,
      'POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\nx-gateway-api-key: sk-edge-test-key-0001\r\ncontent-type: application/json\r\ncontent-length: 500\r\n\r\n{"model":"gpt-4o-mi',
      { keepOpen: true },
    );
    expect(answer.match(/HTTP\/1\.1 \d{3}/g)).toHaveLength(1);
    expect(answer).toMatch(/^HTTP\/1\.1 400/);
    expect(answer).toContain('"param":"x-gateway-provider"');
    const health = await fetch(`${gw.url}/health`);
    expect(health.status).toBe(200);
  });

  it('a caller that closes in the middle of its body while it is read gets one answer at most, and the gateway serves on', async () => {
    const answer = await raw(
      port,
      'POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\nx-gateway-provider: openai\r\nx-gateway-api-key: sk-edge-test-key-0001\r\ncontent-type: application/json\r\ncontent-length: 500\r\n\r\n{"model":"gpt-4o-mi',
      { keepOpen: true },
    );
    expect(answer.match(/HTTP\/1\.1 \d{3}/g)?.length ?? 0).toBeLessThanOrEqual(1);
    const health = await fetch(`${gw.url}/health`);
    expect(health.status).toBe(200);
  });

  it('headers too large: 431 with the contract body', async () => {
    const answer = await raw(port, `GET /health HTTP/1.1\r\nhost: 127.0.0.1\r\nx-big: ${'a'.repeat(40_000)}\r\n\r\n`);
    const { status, body } = statusAndBody(answer);
    expect(status).toBe(431);
    expect(body).toMatchObject({ status: 'failure', error: { type: 'invalid_request_error', code: 'headers_too_large', param: 'headers' } });
  });
});
