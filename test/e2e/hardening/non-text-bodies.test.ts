import { gzipSync, brotliCompressSync, deflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeUpstream } from '../../helpers/fake-upstream.js';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';
import { CHAT, chatBody, post } from '../../helpers/routing-harness.js';

const CALLER_KEY = 'sk-caller-key-of-the-binary-test-7781';
const ORG = 'org-header-secret-binary-5521';

/** Every way the two secrets could be read back out of an answer or a log line. */
function readable(text: string): string[] {
  const squeezed = text.split('\\u0000').join('').split(String.fromCharCode(0)).join('');
  return [text, squeezed];
}

function expectClean(text: string, what: string): void {
  for (const view of readable(text)) {
    for (const secret of [CALLER_KEY, ORG]) {
      expect(view.includes(secret), `${what} holds ${secret}`).toBe(false);
      expect(view.includes(encodeURIComponent(secret)), `${what} holds ${secret} URL-encoded`).toBe(false);
    }
  }
}

const errorJson = (auth: string, org: string) => JSON.stringify({ error: { message: `key ${auth} of org ${org} refused`, type: 'invalid_request_error' } });

describe('error bodies that are not plain UTF-8 text are masked too (compressed, UTF-16, binary)', () => {
  let upstream: FakeUpstream;
  let gw: TestGateway;
  const call = () => post(gw.url, CHAT, chatBody(), { 'x-gateway-provider': 'openai', 'x-gateway-api-key': CALLER_KEY, 'x-gateway-debug': 'true' });

  beforeAll(async () => {
    upstream = await new FakeUpstream().start();
    gw = await startGateway({ logging: { level: 'debug' }, providers: { openai: { baseUrl: `${upstream.url}/v1`, headers: { 'OpenAI-Organization': ORG } } } });
  });
  afterAll(async () => {
    await gw?.close();
    await upstream?.stop();
  });

  const cases: Array<[string, number, (auth: string, org: string) => { body: Buffer; headers: Record<string, string> }, RegExp]> = [
    [
      'gzip-encoded JSON',
      400,
      (a, o) => ({ body: gzipSync(errorJson(a, o)), headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } }),
      /^key \[REDACTED\] of org \[REDACTED\] refused$/,
    ],
    [
      'deflate-encoded JSON',
      500,
      (a, o) => ({ body: deflateSync(errorJson(a, o)), headers: { 'content-type': 'application/json', 'content-encoding': 'deflate' } }),
      /^key \[REDACTED\] of org \[REDACTED\] refused$/,
    ],
    [
      'brotli-encoded text',
      503,
      (a, o) => ({ body: brotliCompressSync(`refused ${a} ${o}`), headers: { 'content-type': 'text/plain', 'content-encoding': 'br' } }),
      /\[REDACTED\] \[REDACTED\]/,
    ],
    [
      'UTF-16LE text',
      400,
      (a, o) => ({ body: Buffer.from(`refused ${a} for ${o}`, 'utf16le'), headers: { 'content-type': 'text/plain; charset=utf-16le' } }),
      /^refused \[REDACTED\] for \[REDACTED\]$/,
    ],
    [
      'UTF-16 JSON with a byte-order mark',
      401,
      (a, o) => ({ body: Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(errorJson(a, o), 'utf16le')]), headers: { 'content-type': 'application/json' } }),
      /^key \[REDACTED\] of org \[REDACTED\] refused$/,
    ],
    [
      'binary bytes around the key',
      500,
      (a, o) => ({
        body: Buffer.concat([Buffer.from([0xff, 0x00, 0x80]), Buffer.from(`${a}\u0000${o}`), Buffer.from([0xc3, 0x28])]),
        headers: { 'content-type': 'application/octet-stream' },
      }),
      /^openai answered HTTP 500$/,
    ],
  ];

  for (const [what, status, reply, message] of cases) {
    it(`${what}: the caller's answer (error.message and error.debug) and the log hold neither the caller's key nor the provider header`, async () => {
      upstream.on('POST /v1/chat/completions', (req, res) => {
        const { body, headers } = reply(String(req.headers.authorization).replace(/^Bearer /, ''), String(req.headers['openai-organization']));
        res.writeHead(status, { ...headers, 'content-length': String(body.length) });
        res.end(body);
      });
      const res = await call();
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.json).toMatchObject({ status: 'failure', error: { provider: 'openai' } });
      // What the body said, decoded and masked; a body that is not text is described, never shown.
      expect(res.json.error.message).toMatch(message);
      if (what.startsWith('binary')) expect(res.json.error.debug.upstream_body).toMatch(/^\(\d+ bytes of application\/octet-stream, not shown\)$/);
      else expect(JSON.stringify(res.json.error.debug)).toContain('[REDACTED]');
      expectClean(res.text, `the answer to ${what}`);
      expectClean(gw.logs.text, `the log after ${what}`);
    });
  }
});
