import { afterAll, beforeAll, describe, it } from 'vitest';
import fc from 'fast-check';
import { ROUTES } from '../../src/contract/routes.js';
import { CALLER_SECRETS, countStatus, expectContractError, expectHealthy, expectNoSecret, fuzz, RUNS, sendRaw, startFuzzWorld, summary, type FuzzWorld } from './harness.js';

/** Every path of the route table (parameters filled in), and some of none. */
const PATHS = [
  ...new Set([
    ...ROUTES.filter((r) => r.path !== '*').map((r) => r.path.replace(/\{\w+\}/g, (m) => (m === '{server}' ? 'proc' : m === '{id}' ? 'tok_x' : 'x1'))),
    '/',
    '/nope',
    '/v1/files/%zz',
    '/v1/auth/tokens/%E0%A4%A',
  ]),
];

/** A header line: a usual or random name, a value with any byte a socket can carry. */
const headerLine = fc.tuple(
  fc.oneof(
    {
      weight: 6,
      arbitrary: fc.constantFrom(
        'x-gateway-provider',
        'x-gateway-api-key',
        'authorization',
        'x-gateway-config',
        'content-type',
        'content-length',
        'transfer-encoding',
        'x-gateway-aws-region',
        'mcp-session-id',
        'origin',
        'host',
        'expect',
        'connection',
        'x-gateway-debug',
      ),
    },
    { weight: 2, arbitrary: fc.stringMatching(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,20}$/) },
    { weight: 1, arbitrary: fc.string({ maxLength: 10 }) },
  ),
  fc.oneof(
    { weight: 6, arbitrary: fc.stringMatching(/^[\x21-\x7e][\x20-\x7e]{0,40}$/) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 30 }).map((a) => Buffer.from(a).toString('latin1')) },
    { weight: 2, arbitrary: fc.constantFrom(...CALLER_SECRETS.filter((s) => /^[\x20-\x7e]+$/.test(s))) },
    {
      weight: 2,
      arbitrary: fc.constantFrom('chunked', '-1', '99999999999999999999', 'openai', 'Bearer \u0000', 'a\rb', 'a\nb', '100-continue', 'close', 'application/json', 'true'),
    },
  ),
);

/** A request as bytes: method, path, version, headers (any), body (any), sometimes absurdly large headers. */
const rawRequest = fc.record({
  method: fc.oneof(fc.constantFrom('GET', 'POST', 'DELETE', 'PUT', 'OPTIONS', 'HEAD', 'PATCH'), fc.stringMatching(/^[A-Z]{1,10}$/), fc.constant('G ET')),
  path: fc.oneof(
    fc.constantFrom(...PATHS),
    fc.stringMatching(/^\/[\x21-\x7e]{0,60}$/),
    fc.constantFrom('/v1/files/../../etc/passwd', '//health', '/v1/chat/completions?%zz', '*', 'http://evil.example/v1/models'),
  ),
  version: fc.constantFrom('HTTP/1.1', 'HTTP/1.1', 'HTTP/1.1', 'HTTP/1.0', 'HTTP/2.0', 'HTTP/1.1x'),
  headers: fc.array(headerLine, { maxLength: 8 }),
  hugeHeader: fc.oneof({ weight: 9, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 8_000, max: 100_000 }) }),
  body: fc.oneof(fc.constant(''), fc.string({ maxLength: 200 }), fc.constant('{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}]}')),
  lineEnd: fc.constantFrom('\r\n', '\r\n', '\r\n', '\n'),
  /** Half the requests are well-formed HTTP (their routes, headers and bodies still fuzzed), to reach the routes. */
  wellFormed: fc.boolean(),
});

const VALID_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const FRAMING = new Set(['content-length', 'transfer-encoding', 'host', 'expect', 'connection']);

/**
 * Requests as raw bytes on a socket, to every route and to none: malformed request lines,
 * header names and values with control characters, lying lengths, broken chunking, headers
 * too large. Every answer is the contract's error body (or a success) or a closed connection,
 * carries no secret, and /health stays 200.
 */
describe('fuzz: raw HTTP', { timeout: 600_000 }, () => {
  let world: FuzzWorld;
  beforeAll(async () => {
    world = await startFuzzWorld();
  });
  afterAll(async () => {
    await world?.close();
    console.log(summary());
  });

  it('any bytes a client may send', async () => {
    await fuzz('raw http', rawRequest, RUNS(400), async (r) => {
      if (r.wellFormed) {
        Object.assign(r, { method: ['GET', 'POST', 'DELETE'].includes(r.method) ? r.method : 'POST', version: 'HTTP/1.1', lineEnd: '\r\n', hugeHeader: 0 });
        r.headers = r.headers.filter(([n, v]) => VALID_NAME.test(n) && !FRAMING.has(n.toLowerCase()) && /^[\x20-\x7e]*$/.test(v));
      }
      const e = r.lineEnd;
      const lines = [`${r.method} ${r.path} ${r.version}`, 'Host: 127.0.0.1', ...r.headers.map(([n, v]) => `${n}: ${v}`)];
      if (r.hugeHeader) lines.push(`x-huge: ${'a'.repeat(r.hugeHeader)}`);
      if (!r.headers.some(([n]) => n.toLowerCase() === 'content-length' || n.toLowerCase() === 'transfer-encoding')) lines.push(`Content-Length: ${Buffer.byteLength(r.body)}`);
      lines.push('Connection: close');
      const bytes = Buffer.from(`${lines.join(e)}${e}${e}${r.body}`, 'latin1');
      const answer = await sendRaw(world.port, bytes);
      countStatus(answer.status);
      const what = JSON.stringify(bytes.toString('latin1').slice(0, 400));
      // The credentials this request carried: secrets of the pool, sent in a credential header.
      const credentials = r.headers
        .filter(([n, v]) => /api-key|authorization|token/i.test(n) && CALLER_SECRETS.includes(v.replace(/^bearer\s+/i, '')))
        .map(([, v]) => v.replace(/^bearer\s+/i, ''));
      // A route that only the SDK transport serves (/mcp) may answer JSON-RPC; every other error is the contract's body.
      if (answer.status >= 400 && r.method !== 'HEAD' && !/^\/mcp/.test(r.path)) expectContractError(answer, what);
      expectNoSecret(answer, credentials, what);
      await expectHealthy(world);
    });
  });
});
