import { afterAll, beforeAll, describe, it } from 'vitest';
import fc from 'fast-check';
import { request } from 'undici';
import {
  CALLER_SECRETS,
  CONFIGURED,
  countStatus,
  expectContractError,
  expectHealthy,
  expectNoSecret,
  fuzz,
  nastyString,
  RUNS,
  startFuzzWorld,
  summary,
  type Answer,
  type FuzzWorld,
} from './harness.js';

const METHODS = [
  'initialize',
  'ping',
  'tools/list',
  'tools/call',
  'prompts/list',
  'prompts/get',
  'resources/list',
  'resources/read',
  'resources/templates/list',
  'resources/subscribe',
  'completion/complete',
  'logging/setLevel',
  'notifications/initialized',
  'notifications/cancelled',
  'sampling/createMessage',
  'nope/nope',
];

const json = fc.jsonValue({ maxDepth: 3 });

/** A value one time in four, else nothing. */
const sometimes = <T>(arb: fc.Arbitrary<T>) => fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: arb });

/** Params shaped for the method (often), or anything. */
const params = fc.oneof(
  fc.record({ name: fc.constantFrom('proc__env', 'proc__fail', 'env', 'proc__', '__', 'nope__x'), arguments: fc.dictionary(fc.string({ maxLength: 6 }), json, { maxKeys: 2 }) }),
  fc.record({
    protocolVersion: fc.constantFrom('2025-06-18', '2025-03-26', '2024-11-05', '2026-07-28', 'x'),
    capabilities: fc.constant({}),
    clientInfo: fc.record({ name: nastyString, version: fc.constant('1') }),
  }),
  fc.record({ uri: fc.oneof(fc.constantFrom('mcp://proc/x', 'note://x', ''), nastyString), cursor: sometimes(nastyString) }),
  fc.record({ level: fc.constantFrom('debug', 'error', 'x'), _meta: sometimes(fc.dictionary(fc.string({ maxLength: 20 }), json, { maxKeys: 3 })) }),
  json,
);

const message = fc.record(
  {
    jsonrpc: fc.constantFrom('2.0', '2.0', '2.0', '1.0', 2),
    id: fc.oneof(fc.integer(), fc.string({ maxLength: 8 }), fc.constant(null), json),
    method: fc.oneof(fc.constantFrom(...METHODS), fc.string({ maxLength: 12 })),
    params,
  },
  { requiredKeys: ['jsonrpc', 'method'] },
);

/** Calls that reach the tool server (whose results and errors quote its credentials). */
const call = fc.record({
  jsonrpc: fc.constant('2.0'),
  id: fc.integer({ min: 1 }),
  method: fc.constantFrom('tools/call', 'tools/list', 'ping'),
  params: fc.record({ name: fc.constantFrom('proc__env', 'proc__fail', 'env', 'fail'), arguments: fc.dictionary(fc.string({ maxLength: 6 }), json, { maxKeys: 2 }) }),
});

/** A POST to /mcp: one message, a batch, or text that is not JSON; with awkward headers. */
const post = fc.record({
  body: fc.oneof(
    { weight: 4, arbitrary: call.map((m) => JSON.stringify(m)) },
    { weight: 6, arbitrary: message.map((m) => JSON.stringify(m)) },
    { weight: 1, arbitrary: fc.array(message, { maxLength: 3 }).map((m) => JSON.stringify(m)) },
    { weight: 1, arbitrary: nastyString },
  ),
  path: fc.constantFrom('/mcp', '/mcp', '/mcp', '/mcp', '/mcp/proc', '/mcp/nope', '/mcp/%2e%2e'),
  accept: fc.constantFrom(
    'application/json, text/event-stream',
    'application/json, text/event-stream',
    'application/json, text/event-stream',
    'application/json, text/event-stream',
    'application/json',
    'text/event-stream',
    '*/*',
    '',
  ),
  contentType: fc.constantFrom('application/json', 'application/json', 'text/plain', ''),
  auth: fc.constantFrom('token', 'token', 'token', 'token', 'token', 'none', 'secret', 'admin', 'config-key'),
  protocol: sometimes(fc.constantFrom('2025-06-18', '2026-07-28', '1999-01-01', 'x')),
  /** The session opened at the start (most cases, so that calls reach the tool server), another, or none. */
  session: fc.oneof(
    { weight: 6, arbitrary: fc.constant('open') },
    { weight: 1, arbitrary: fc.uuid() },
    { weight: 1, arbitrary: fc.stringMatching(/^[\x21-\x7e]{1,40}$/) },
    { weight: 2, arbitrary: fc.constant(undefined) },
  ),
  origin: fc.oneof({ weight: 8, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constantFrom('http://127.0.0.1', 'https://evil.example', 'null') }),
  method: fc.constantFrom('POST', 'POST', 'POST', 'POST', 'GET', 'DELETE', 'PUT'),
  /** Four cases in ten send well-formed HTTP on the shared session (only the JSON-RPC is fuzzed), to reach the tool server. */
  happy: fc.integer({ min: 0, max: 9 }).map((n) => n < 4),
});

/** Whether an answer is a JSON-RPC message (or SSE events of them) with well-formed errors. */
function jsonRpcBodies(answer: Answer): unknown[] {
  const type = String(answer.headers['content-type'] ?? '');
  if (type.includes('text/event-stream')) {
    return answer.text
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => JSON.parse(l.slice(6)));
  }
  return answer.text ? [JSON.parse(answer.text)] : [];
}

/**
 * /mcp and /mcp/<server>: generated JSON-RPC (known and unknown methods, shaped and random
 * params, batches, text that is not JSON) with awkward headers (sessions, protocol versions,
 * Origin, credentials). HTTP errors are the contract's body or, inside a 200, well-formed
 * JSON-RPC errors; no answer carries a tool server's credentials or the caller's; /health stays 200.
 */
describe('fuzz: MCP endpoint', { timeout: 600_000 }, () => {
  let world: FuzzWorld;
  let token: string;
  let session: string;
  beforeAll(async () => {
    world = await startFuzzWorld();
    const res = await request(`${world.base}/v1/auth/tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${CONFIGURED.admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({ user: 'fuzzer', scopes: ['mcp:read', 'mcp:write'] }),
    });
    token = ((await res.body.json()) as { token: string }).token;
    // A session the cases share (the handshake-era transport): initialize, then initialized.
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const init = await request(`${world.base}/mcp`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } },
      }),
    });
    await init.body.text();
    session = String(init.headers['mcp-session-id']);
    const done = await request(`${world.base}/mcp`, {
      method: 'POST',
      headers: { ...headers, 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    });
    await done.body.text();
  });
  afterAll(async () => {
    await world?.close();
    console.log(summary());
  });

  it('JSON-RPC and HTTP on /mcp', async () => {
    await fuzz('mcp', post, RUNS(400), async (p) => {
      if (p.happy)
        Object.assign(p, {
          path: '/mcp',
          accept: 'application/json, text/event-stream',
          contentType: 'application/json',
          auth: 'token',
          protocol: undefined,
          session: 'open',
          origin: undefined,
          method: 'POST',
        });
      const headers: Record<string, string> = {};
      if (p.accept) headers.accept = p.accept;
      if (p.contentType) headers['content-type'] = p.contentType;
      const credential =
        p.auth === 'token'
          ? token
          : p.auth === 'secret'
            ? CALLER_SECRETS[0]!
            : p.auth === 'admin'
              ? CONFIGURED.admin
              : p.auth === 'config-key'
                ? CONFIGURED.apiKeyCredential
                : undefined;
      if (credential) headers.authorization = `Bearer ${credential}`;
      if (p.protocol) headers['mcp-protocol-version'] = p.protocol;
      // DELETE ends a session: the shared one is never ended, so that later cases can use it.
      if (p.session === 'open' && p.method === 'DELETE') p.session = '00000000-0000-4000-8000-000000000000';
      if (p.session) headers['mcp-session-id'] = p.session === 'open' ? session : p.session;
      if (p.session === 'open' && !p.protocol) headers['mcp-protocol-version'] = '2025-06-18';
      if (p.origin) headers.origin = p.origin;
      let answer: Answer;
      try {
        const res = await request(`${world.base}${p.path}`, {
          method: p.method as 'POST',
          headers,
          body: p.method === 'POST' ? p.body : undefined,
          dispatcher: world.dispatcher,
          // A GET opens the server's event stream: read what is there and stop.
          signal: p.method === 'GET' ? AbortSignal.timeout(300) : undefined,
        });
        let text = '';
        try {
          text = await res.body.text();
        } catch {
          /* an event stream cut by the signal */
        }
        answer = { status: res.statusCode, headers: res.headers, text };
      } catch (err) {
        if ((err as Error).name === 'AbortError' || (err as Error).name === 'TimeoutError') return;
        throw err;
      }
      countStatus(answer.status);
      const what = `${p.method} ${p.path} ${JSON.stringify(headers).slice(0, 200)} ${p.body.slice(0, 300)}`;
      // The MCP transport's own HTTP errors (an unsupported protocol version, a missing header)
      // are JSON-RPC errors, as MCP clients expect; every other error is the contract's body.
      if (answer.status >= 400) {
        const body = (() => {
          try {
            return JSON.parse(answer.text);
          } catch {
            return undefined;
          }
        })();
        if (body?.jsonrpc === '2.0' && body.error) {
          if (!(Number.isInteger(body.error.code) && typeof body.error.message === 'string')) throw new Error(`${what}: a malformed JSON-RPC error ${answer.text}`);
        } else expectContractError(answer, what);
      } else if (answer.status === 200 && answer.text) {
        for (const m of jsonRpcBodies(answer) as Array<Record<string, any>>) {
          for (const one of Array.isArray(m) ? m : [m]) {
            if (one.error && !(Number.isInteger(one.error.code) && typeof one.error.message === 'string'))
              throw new Error(`${what}: a malformed JSON-RPC error ${JSON.stringify(one)}`);
          }
        }
      }
      // The issued token is the caller's own and not a secret of the gateway's; a credential it did not own is.
      expectNoSecret(answer, credential && credential !== token ? [credential] : [], what);
      await expectHealthy(world);
    });
  });
});
