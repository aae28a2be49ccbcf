import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { request } from 'undici';
import { isProviderRoute, ROUTES, type AnyRouteSpec } from '../../src/contract/routes.js';
import {
  CALLER_SECRETS,
  CONFIGURED,
  countStatus,
  credentialsOf,
  expectContractError,
  expectHealthy,
  expectNoSecret,
  fuzz,
  headerValue,
  nastyString,
  PROVIDER_IDS,
  RUNS,
  startFuzzWorld,
  summary,
  type Answer,
  type FuzzWorld,
} from './harness.js';

const json = fc.jsonValue({ maxDepth: 3 });

/** Path parameter values: plausible ids, dot segments, encodings that decode to nothing valid. */
const paramValue = fc.oneof(
  { weight: 3, arbitrary: fc.stringMatching(/^[A-Za-z0-9_-]{1,24}$/) },
  { weight: 2, arbitrary: fc.constantFrom('proc', 'nope', 'tok_x', 'file-x', 'batch_x', 'ftjob-x') },
  { weight: 2, arbitrary: fc.constantFrom('..', '.', '%2e%2e', '%00', 'a%2Fb', '%zz', '%E0%A4%A', '%', '%C3%28', '%F0%9F%98', '%25', '~') },
);

/** Headers any route may meet: the gateway's own, MCP's, CORS, credentials of every kind. */
const HEADER_NAMES = [
  'x-gateway-provider',
  'x-gateway-api-key',
  'x-gateway-config',
  'x-gateway-debug',
  'x-gateway-metadata',
  'x-gateway-token',
  'x-gateway-aws-region',
  'x-gateway-azure-resource-name',
  'x-gateway-vertex-project-id',
  'origin',
  'mcp-session-id',
  'mcp-protocol-version',
  'accept',
  'access-control-request-method',
  'access-control-request-headers',
  'x-forwarded-proto',
  'x-forwarded-host',
  'traceparent',
  'if-none-match',
];

/** The credential a request carries in Authorization (the admin token, a gateway token, a config key, a caller's key, junk). */
const AUTH = ['none', 'admin', 'token', 'config-key', 'caller', 'junk'] as const;

/** Bodies: JSON of the shapes the gateway's own routes take (token requests, JSON-RPC), any JSON, or text. */
const body = fc.oneof(
  {
    weight: 2,
    arbitrary: fc
      .record(
        {
          user: fc.oneof(fc.constant('fuzzer'), nastyString),
          scopes: fc.oneof(fc.constant(['mcp:read']), json),
          expiresIn: fc.oneof(fc.constantFrom('1d', '3651d', '0s'), nastyString),
        },
        { requiredKeys: [] },
      )
      .map((b) => JSON.stringify(b)),
  },
  {
    weight: 2,
    arbitrary: fc
      .record(
        { jsonrpc: fc.constant('2.0'), id: fc.integer(), method: fc.constantFrom('initialize', 'tools/list', 'tools/call', 'ping', 'nope'), params: json },
        { requiredKeys: ['jsonrpc', 'method'] },
      )
      .map((b) => JSON.stringify(b)),
  },
  {
    weight: 2,
    arbitrary: fc
      .record(
        { model: fc.constant('gpt-4o-mini'), messages: fc.constant([{ role: 'user', content: 'Hi' }]), input: fc.constant('Hi'), stream: fc.boolean() },
        { requiredKeys: ['model'] },
      )
      .map((b) => JSON.stringify(b)),
  },
  { weight: 2, arbitrary: json.map((v) => JSON.stringify(v)) },
  { weight: 1, arbitrary: nastyString },
  { weight: 1, arbitrary: fc.constant('') },
);

interface Case {
  method: string;
  path: string;
  auth: (typeof AUTH)[number];
  headers: Record<string, string>;
  contentType?: string;
  body?: string;
}

/** Requests to one route of the table: its method and path (parameters fuzzed), any headers, credentials and body. */
function caseFor(route: AnyRouteSpec): fc.Arbitrary<Case> {
  const known = ROUTES.filter((r) => r.path !== '*').map((r) => r.path.replace(/\{\w+\}/g, 'x'));
  const path =
    route.path === '*'
      ? fc.oneof(
          fc.stringMatching(/^\/[\x21-\x7e]{0,60}$/).map((p) => p.replace(/#/g, '')),
          fc.constantFrom(...known, '/', '//health', '/v1', '/v1/chat', '/.well-known/x'),
        )
      : fc.array(paramValue, { minLength: 4, maxLength: 4 }).map((values) => {
          let i = 0;
          return route.path.replace(/\{\w+\}/g, () => values[i++]!);
        });
  const query = fc.option(
    fc.stringMatching(/^[a-z_]{1,8}=[\x21-\x7e]{0,16}$/).map((q) => q.replace(/[#\s]/g, '')),
    { nil: undefined, freq: 4 },
  );
  const method = route.method === '*' ? fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD') : fc.constant(route.method);
  return fc.record({
    method,
    path: fc.tuple(path, query).map(([p, q]) => (q ? `${p}?${q}` : p)),
    auth: fc.constantFrom(...AUTH),
    headers: fc.dictionary(fc.constantFrom(...HEADER_NAMES), fc.oneof(headerValue, fc.constantFrom(...PROVIDER_IDS)), { maxKeys: 4 }),
    contentType: fc.option(fc.constantFrom('application/json', 'application/json', 'text/plain', 'multipart/form-data; boundary=x', 'application/x-www-form-urlencoded'), {
      nil: undefined,
    }),
    body: fc.option(body, { nil: undefined, freq: 5 }),
  });
}

/** Whether a body is a well-formed JSON-RPC error (the MCP transport's own HTTP errors are such). */
function isJsonRpcError(text: string): boolean {
  try {
    const m = JSON.parse(text);
    return m?.jsonrpc === '2.0' && Number.isInteger(m.error?.code) && typeof m.error?.message === 'string';
  } catch {
    return false;
  }
}

/**
 * Every route of the route table (src/contract/routes.ts): the provider routes, /mcp and
 * /mcp/{server} with each method, the token operations, the well-known documents, the ops
 * routes, and the catch-all of unknown routes. Each property sends the route's method and path
 * (parameters fuzzed: dot segments, malformed percent-encodings), generated headers and
 * credentials (the admin token, a gateway token, a config key, a caller's key) and bodies.
 * Each answer is a success or the contract's error body with its status (a JSON-RPC error on
 * the MCP transport's own refusals), never a dropped connection, carries no secret the gateway
 * holds or the request carried, and /health stays 200.
 */
describe('fuzz: every route of the route table', { timeout: 600_000 }, () => {
  let world: FuzzWorld;
  let token: string;
  let publicConfig: string;
  const served = new Set<string>();
  beforeAll(async () => {
    world = await startFuzzWorld();
    const shown = await request(`${world.base}/v1/admin/config`, { headers: { authorization: `Bearer ${CONFIGURED.admin}` } });
    publicConfig = await shown.body.text();
    const res = await request(`${world.base}/v1/auth/tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${CONFIGURED.admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({ user: 'route-fuzzer', scopes: ['mcp:read', 'mcp:write'] }),
    });
    token = ((await res.body.json()) as { token: string }).token;
  });
  afterAll(async () => {
    await world?.close();
    console.log(summary());
  });

  it.each(ROUTES.map((r) => [r.key, r] as const))('%s', async (key, route) => {
    await fuzz(`route ${key}`, caseFor(route), RUNS(isProviderRoute(route) ? 12 : 40), async (c) => {
      const headers: Record<string, string> = { ...c.headers };
      const credential =
        c.auth === 'admin'
          ? CONFIGURED.admin
          : c.auth === 'token'
            ? token
            : c.auth === 'config-key'
              ? CONFIGURED.apiKeyCredential
              : c.auth === 'caller'
                ? CALLER_SECRETS[0]!
                : c.auth === 'junk'
                  ? 'not-a-credential-at-all'
                  : undefined;
      if (credential) headers.authorization = `Bearer ${credential}`;
      const sendsBody = c.method !== 'GET' && c.method !== 'HEAD' && c.body !== undefined;
      if (sendsBody && c.contentType) headers['content-type'] = c.contentType;
      // The catch-all's cases may land on /mcp too: the MCP transport's own refusals are JSON-RPC errors there as well.
      const mcp = route.path.startsWith('/mcp') || /^\/mcp(\/|\?|$)/i.test(c.path);
      let answer: Answer;
      try {
        const res = await request(`${world.base}${c.path}`, {
          method: c.method as 'GET',
          headers,
          body: sendsBody ? c.body : undefined,
          dispatcher: world.dispatcher,
          headersTimeout: 20_000,
          // A GET on /mcp may open the server's event stream: read what is there and stop.
          signal: mcp && c.method === 'GET' ? AbortSignal.timeout(500) : undefined,
        });
        let text = '';
        if (String(res.headers['content-type'] ?? '').startsWith('text/event-stream') && !mcp) {
          // An endless event stream (GET /v1/admin/requests/stream): its headers are the answer; stop reading there.
          res.body.destroy();
        } else {
          try {
            text = await res.body.text();
          } catch {
            // An event stream cut by the signal.
          }
        }
        answer = { status: res.statusCode, headers: res.headers, text };
      } catch (err) {
        const name = (err as Error).name;
        if (mcp && (name === 'AbortError' || name === 'TimeoutError')) return;
        throw new Error(`${c.method} ${c.path}: no answer (${(err as { code?: string }).code ?? name})`);
      }
      countStatus(answer.status);
      const what = `${c.method} ${c.path} ${JSON.stringify(headers).slice(0, 300)} ${String(c.body ?? '').slice(0, 200)}`;
      if (answer.headers['x-gateway-request-id']) served.add(key);
      if (answer.status >= 400 && c.method !== 'HEAD' && !(mcp && isJsonRpcError(answer.text))) expectContractError(answer, what);
      // The issued token is the caller's own, not a secret of the gateway's. A header value that is
      // also a word of what GET /v1/admin/config shows (the config with its secrets masked, and the
      // pipelines: a provider id sent as x-gateway-token) is no credential the answer could leak.
      const carried = credentialsOf(headers).filter((v) => v !== token && v !== `Bearer ${token}` && !publicConfig.includes(v));
      expectNoSecret(answer, carried, what);
      await expectHealthy(world);
    });
  });

  it('reached the edge on every route (each answered with its request id)', () => {
    const missing = ROUTES.map((r) => r.key).filter((k) => !served.has(k));
    expect(missing).toEqual([]);
  });
});
