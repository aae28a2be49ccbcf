import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import {
  CONFIGURED,
  countStatus,
  expectContractError,
  expectHealthy,
  expectNoSecret,
  fuzz,
  headerValue,
  nastyString,
  RUNS,
  send,
  startFuzzWorld,
  summary,
  type Answer,
  type FuzzRequest,
  type FuzzWorld,
} from './harness.js';
import { dropSharedState, sharedStoreConfig } from '../helpers/shared-stores.js';

const here = dirname(fileURLToPath(import.meta.url));

/** Provider keys the gateway holds: from the config, and made through the admin API by the cases. */
const HELD = {
  config: 'sk-held-fuzz-config-4f1e2d3c',
  groq: 'gsk-held-fuzz-config-8e9f0a1b',
  api: ['sk-held-fuzz-api-7a6b5c4d', 'held "fuzz" \\ api/key+2=4 %41', 'AKIAHELDFUZZAPI09'],
};

const json = fc.jsonValue({ maxDepth: 2 });

/** Mostly what the field takes (so that most writes land and later steps use them), sometimes anything. */
const mostly = <T>(valid: fc.Arbitrary<T>, other: fc.Arbitrary<unknown> = fc.oneof(nastyString, json)) =>
  fc.oneof({ weight: 12, arbitrary: valid as fc.Arbitrary<unknown> }, { weight: 1, arbitrary: other });

/** Budget windows: the contract's periods and kinds, time zones real and invented, and values of other types. */
const window = fc.record(
  {
    period: mostly(fc.constantFrom('day', 'week', 'month', 'total', '1h', '24h', '7d', '99999d', '99999h', '0h', '1m', 'Day')),
    kind: mostly(fc.constantFrom('calendar', 'rolling')),
    timezone: mostly(
      fc.constantFrom(
        'UTC',
        'Europe/Paris',
        'America/St_Johns',
        'Asia/Kathmandu',
        'Pacific/Chatham',
        'Pacific/Kiritimati',
        'Etc/GMT+12',
        'Not/AZone',
        'utc',
        '+05:30',
        'EST5EDT',
        '',
      ),
    ),
  },
  { requiredKeys: [] },
);

/** A budget's fields: limits at and past their bounds, alerts of every size, and anything at all. */
const budget = fc.record(
  {
    name: mostly(fc.string({ maxLength: 20 })),
    limit_usd: mostly(fc.oneof(fc.constantFrom(0, 1e-7, 0.000001, 0.0000015, 0.01, 1, 1e9, 1e9 + 1, -1, 1e308, 5e-324), fc.double({ min: 0, max: 1e9, noNaN: true }))),
    limit_tokens: mostly(fc.constantFrom(0, 1, 100, 2 ** 31, 2 ** 53 - 1, 2 ** 53 + 2, 1e20, -1, 1.5)),
    window: mostly(window),
    action: mostly(fc.constantFrom('block', 'audit')),
    alerts: mostly(fc.array(fc.oneof(fc.constantFrom(50, 80, 100, 0.0001, 1e-300, 99.999), fc.double({ min: 0, max: 100, noNaN: true })), { maxLength: 4 })),
  },
  { requiredKeys: [] },
);

/** Model names a key, team or request may name: the catalogue's, globs, and anything. */
const modelName = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom('chat', 'cheap', 'openai/gpt-4o-mini', 'openai/*', '*', 'ch*', 'c?at', '[', '**', 'unpriced', 'openai/gpt-\u0000x', 'openai/\tx', 'ch\u0000at'),
  },
  { weight: 1, arbitrary: nastyString },
);

/** Tenants and subjects: those the config file has, those the cases make, and anything. */
const TEAMS = ['search', 'ads', 'fz-team-1', 'fz-team-2'];
const ORGS = ['acme', 'fz-org-1'];
const USERS = ['alice', 'fz-user-1', 'fz-user-2'];
const tenantId = (ids: string[]) => mostly(fc.constantFrom(...ids), nastyString);

const metadata = mostly(fc.dictionary(fc.string({ maxLength: 8 }), json, { maxKeys: 4, noNullPrototype: true }));
const organizationBody = fc.record({ id: tenantId(ORGS), name: mostly(fc.string({ maxLength: 20 })), metadata }, { requiredKeys: ['id'] });
const teamBody = fc.record(
  { id: tenantId(TEAMS), name: mostly(fc.string({ maxLength: 20 })), organization: tenantId(ORGS), models: mostly(fc.array(modelName, { maxLength: 3 })), metadata },
  { requiredKeys: ['id'] },
);
const userBody = fc.record(
  {
    id: tenantId(USERS),
    name: mostly(fc.string({ maxLength: 20 })),
    email: mostly(fc.constantFrom('a@example.com', '')),
    team: tenantId(TEAMS),
    roles: mostly(fc.subarray(['admin', 'viewer', 'team_admin', 'reader'])),
    metadata,
  },
  { requiredKeys: ['id'] },
);
const budgetBody = fc
  .tuple(
    fc.record({
      scope: mostly(fc.constantFrom('key', 'key', 'user', 'team', 'organization', 'customer', 'model', 'credential')),
      subject: tenantId([...TEAMS, ...ORGS, ...USERS, 'chat', 'cheap', 'held-config', 'held-api-0', 'cust-1', 'issued-key', 'issued-key', 'issued-key', '']),
    }),
    budget,
  )
  .map(([where, fields]) => ({ ...where, ...fields }));

/** A gateway key's fields (contract §8) beside the token operations' own. */
const keyBody = fc.record(
  {
    user: tenantId(USERS),
    team: tenantId(TEAMS),
    organization: tenantId(ORGS),
    models: mostly(fc.array(modelName, { maxLength: 3 })),
    limits: mostly(
      fc.record(
        {
          rpm: mostly(fc.constantFrom(1, 2, 1000, 1e8, 1e8 + 1, 0, -1, 1.5)),
          tpm: mostly(fc.constantFrom(1, 10, 1e6, 1e11, 1e11 + 1, 0)),
          maxParallel: mostly(fc.constantFrom(1, 2, 64, 1e6, 0)),
        },
        { requiredKeys: [] },
      ),
    ),
    budgets: mostly(fc.array(budget, { maxLength: 3 })),
    mcp: mostly(fc.record({ servers: fc.subarray(['proc', 'nope', '*']), tools: fc.subarray(['proc__env', 'proc__*', 'env', '*']) }, { requiredKeys: [] })),
    metadata: fc.oneof(
      fc.record({ assertsCustomer: mostly(fc.constantFrom(true, true, false)), team: nastyString, ['__proto__']: json }, { requiredKeys: ['assertsCustomer'] }),
      fc.record({ assertsCustomer: mostly(fc.constantFrom(true, true, false)), team: nastyString, ['__proto__']: json }, { requiredKeys: ['assertsCustomer'] }),
      fc.dictionary(fc.string({ maxLength: 8 }), json, { maxKeys: 4, noNullPrototype: true }),
      json,
    ),
    blocked: fc.oneof({ weight: 1, arbitrary: fc.constant(true) }, { weight: 8, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: json }),
    expiresIn: mostly(fc.constantFrom('30d', '1s', '3650d', '3651d')),
  },
  { requiredKeys: ['user'] },
);

/** What a key's edit may send: its editable fields, null to remove, and fields it may not change. */
const keyPatch = fc.record(
  {
    name: mostly(fc.oneof(fc.string({ maxLength: 20 }), fc.constant(null))),
    models: mostly(fc.oneof(fc.array(modelName, { maxLength: 3 }), fc.constant(null))),
    limits: mostly(fc.oneof(fc.record({ rpm: fc.constantFrom(1, 5, null, 0), maxParallel: fc.constantFrom(1, null, 1e6) }, { requiredKeys: [] }), fc.constant(null))),
    budgets: mostly(fc.oneof(fc.array(budget, { maxLength: 2 }), fc.constant(null))),
    metadata: mostly(fc.oneof(metadata, fc.constant(null))),
    expires_at: mostly(fc.constantFrom(1, 99999999999, Math.floor(Date.now() / 1000) + 3600, Math.floor(Date.now() / 1000) + 3651 * 86400)),
    user: nastyString,
  },
  { requiredKeys: [] },
);

/** A credential made through the admin API: a provider, its key (one of the secrets held), and other fields. */
const credentialBody = fc.record(
  {
    name: mostly(fc.constantFrom('held-api-0', 'held-api-1', 'held-config', 'x'.repeat(129))),
    provider: mostly(fc.constantFrom('openai', 'groq', 'anthropic', 'bedrock', 'nope')),
    api_key: mostly(fc.constantFrom(...HELD.api)),
    description: mostly(fc.string({ maxLength: 20 })),
    base_url: mostly(fc.constantFrom('http://127.0.0.1:9/v1', 'https://caller.example/v1')),
    aws_secret_access_key: fc.constantFrom(...HELD.api),
  },
  { requiredKeys: ['name', 'provider'] },
);

/** A request made with an issued key: a catalogue model (or any name), streamed or not, capped or not, with a customer named or not. */
const modelRequest = fc.record(
  {
    route: fc.constantFrom('/v1/chat/completions', '/v1/chat/completions', '/v1/completions', '/v1/embeddings', '/v1/messages', '/v1/responses'),
    model: modelName,
    stream: mostly(fc.boolean()),
    max_tokens: mostly(fc.constantFrom(1, 16, 0, 1e9, -1, 2 ** 31, 1.5)),
    stream_options: mostly(fc.record({ include_usage: mostly(fc.boolean()) }, { requiredKeys: [] })),
    customer: fc.oneof({ weight: 1, arbitrary: headerValue }, { weight: 1, arbitrary: fc.constantFrom('cust-1', 'cust-2') }),
    keyHeader: fc.constantFrom('authorization', 'x-api-key', 'api-key', 'x-gateway-token'),
  },
  { requiredKeys: ['route', 'model', 'keyHeader'] },
);

/** A tool-server request made with the newest key: through /mcp or the server's own path, a tool priced or not, named right or wrong. */
const mcpRequest = fc.record({
  path: fc.constantFrom('/mcp', '/mcp', '/mcp/proc', '/mcp/nope'),
  method: fc.constantFrom('tools/call', 'tools/call', 'tools/list', 'initialize', 'ping'),
  tool: mostly(fc.constantFrom('proc__env', 'proc__fail', 'env', 'fail', 'proc__nope')),
  arguments: fc.oneof(fc.constant({}), fc.dictionary(fc.string({ maxLength: 6 }), json, { maxKeys: 2, noNullPrototype: true }), json),
});

const usageQuery = fc.record(
  {
    group_by: fc.oneof(fc.constantFrom('key', 'user', 'team', 'organization', 'customer', 'model', 'provider', 'route', ''), nastyString),
    from: fc.oneof(fc.constantFrom('0', '1', '99999999999', '2026-01-01', '2026-13-45', '-1', '1e3', 'NaN'), nastyString),
    to: fc.oneof(fc.constantFrom('99999999999', '999999999999', '2099-01-01T00:00:00Z'), nastyString),
    interval: fc.oneof(fc.constantFrom('hour', 'day', 'week', ''), nastyString),
    format: fc.oneof(fc.constantFrom('json', 'csv', 'xml'), nastyString),
    team: nastyString,
    limit: fc.constantFrom('0', '1', '1000', '100000', '-1', 'x'),
    resource: fc.oneof(fc.constantFrom('key', 'budget', 'team', 'credential'), nastyString),
    actor: nastyString,
    search: nastyString,
    order: fc.constantFrom('asc', 'desc', 'up'),
    after: fc.oneof(fc.constantFrom('0', 'tok_x', 'bud_x'), nastyString),
  },
  { requiredKeys: [] },
);

type Step =
  | { kind: 'tenant'; resource: 'organizations' | 'teams' | 'users'; body: unknown; method: 'POST' | 'PATCH' | 'DELETE' }
  | { kind: 'budget'; body: unknown; method: 'POST' | 'PATCH' | 'DELETE' }
  | { kind: 'key'; body: unknown }
  | { kind: 'key-edit'; body: unknown; op: 'patch' | 'rotate' | 'block' | 'unblock' | 'revoke'; grace: string }
  | { kind: 'credential'; body: unknown; op: 'create' | 'delete' | 'test' }
  | { kind: 'call'; req: Record<string, unknown> }
  | { kind: 'mcp'; req: { path: string; method: string; tool: unknown; arguments: unknown } }
  | { kind: 'read'; what: 'me' | 'models' | 'usage' | 'audit' | 'lists' | 'keys'; query: Record<string, string> };

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .tuple(
        fc.constantFrom('organizations', 'teams', 'users') as fc.Arbitrary<'organizations' | 'teams' | 'users'>,
        fc.constantFrom('POST', 'POST', 'PATCH', 'DELETE') as fc.Arbitrary<'POST' | 'PATCH' | 'DELETE'>,
      )
      .chain(([resource, method]) =>
        (resource === 'organizations' ? organizationBody : resource === 'teams' ? teamBody : userBody).map((body): Step => ({ kind: 'tenant', resource, body, method })),
      ),
  },
  {
    weight: 3,
    arbitrary: fc
      .tuple(budgetBody, fc.constantFrom('POST', 'POST', 'PATCH', 'DELETE') as fc.Arbitrary<'POST' | 'PATCH' | 'DELETE'>)
      .map(([body, method]): Step => ({ kind: 'budget', body, method })),
  },
  { weight: 3, arbitrary: keyBody.map((body): Step => ({ kind: 'key', body })) },
  {
    weight: 2,
    arbitrary: fc
      .record({
        body: keyPatch,
        op: fc.constantFrom('patch', 'patch', 'rotate', 'block', 'unblock', 'revoke'),
        grace: fc.oneof(fc.constantFrom('1h', '30d', '31d', '0s'), nastyString),
      })
      .map((r): Step => ({ kind: 'key-edit', ...(r as { body: unknown; op: 'patch'; grace: string }) })),
  },
  {
    weight: 2,
    arbitrary: fc
      .record({ body: credentialBody, op: fc.constantFrom('create', 'create', 'delete', 'test') })
      .map((r): Step => ({ kind: 'credential', ...(r as { body: unknown; op: 'create' }) })),
  },
  { weight: 6, arbitrary: modelRequest.map((req): Step => ({ kind: 'call', req })) },
  { weight: 3, arbitrary: mcpRequest.map((req): Step => ({ kind: 'mcp', req })) },
  {
    weight: 3,
    arbitrary: fc
      .record({ what: fc.constantFrom('me', 'models', 'usage', 'usage', 'audit', 'lists', 'keys'), query: usageQuery as fc.Arbitrary<Record<string, string>> })
      .map((r): Step => ({ kind: 'read', ...(r as { what: 'me'; query: Record<string, string> }) })),
  },
);

const ADMIN = { authorization: `Bearer ${CONFIGURED.admin}`, 'content-type': 'application/json' };

/** A path segment of any string (a lone surrogate, which no URL can carry, is sent as U+FFFD). */
const segment = (text: string) => encodeURIComponent(text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD')) || 'none';

/** The world's issued keys (value and id), and the ids the cases made. */
interface Made {
  keys: Array<{ id: string; token: string }>;
  budgets: string[];
}

function requestOf(s: Step, made: Made): FuzzRequest[] {
  const key = made.keys.at(-1);
  const id = (body: unknown) => (body && typeof body === 'object' && typeof (body as { id?: unknown }).id === 'string' ? segment((body as { id: string }).id) : 'none');
  switch (s.kind) {
    case 'tenant': {
      if (s.method === 'POST') return [{ method: 'POST', path: `/v1/admin/${s.resource}`, headers: ADMIN, body: JSON.stringify(s.body) }];
      const { id: _dropped, ...rest } = (s.body ?? {}) as Record<string, unknown>;
      return [{ method: s.method, path: `/v1/admin/${s.resource}/${id(s.body)}`, headers: ADMIN, body: s.method === 'PATCH' ? JSON.stringify(rest) : undefined }];
    }
    case 'budget': {
      const body = { ...(s.body as Record<string, unknown>) };
      if (body.subject === 'issued-key' && key) body.subject = key.id;
      if (s.method === 'POST') return [{ method: 'POST', path: '/v1/admin/budgets', headers: ADMIN, body: JSON.stringify(body) }];
      const target = made.budgets.at(-1) ?? 'budget-none';
      const { scope: _s, subject: _t, ...fields } = body;
      return [{ method: s.method, path: `/v1/admin/budgets/${target}`, headers: ADMIN, body: s.method === 'PATCH' ? JSON.stringify(fields) : undefined }];
    }
    case 'key':
      return [{ method: 'POST', path: '/v1/auth/tokens', headers: ADMIN, body: JSON.stringify(s.body) }];
    case 'key-edit': {
      const kid = key?.id ?? 'tok_none';
      if (s.op === 'patch') return [{ method: 'PATCH', path: `/v1/auth/tokens/${kid}`, headers: ADMIN, body: JSON.stringify(s.body) }];
      if (s.op === 'revoke') return [{ method: 'DELETE', path: `/v1/auth/tokens/${kid}`, headers: ADMIN }];
      if (s.op === 'rotate') return [{ method: 'POST', path: `/v1/auth/tokens/${kid}/rotate`, headers: ADMIN, body: JSON.stringify({ gracePeriod: s.grace }) }];
      return [{ method: 'POST', path: `/v1/auth/tokens/${kid}/${s.op}`, headers: ADMIN }];
    }
    case 'credential': {
      const name = (s.body as { name?: unknown }).name;
      const path = `/v1/admin/credentials/${segment(typeof name === 'string' ? name : 'none')}`;
      if (s.op === 'create') return [{ method: 'POST', path: '/v1/admin/credentials', headers: ADMIN, body: JSON.stringify(s.body) }];
      return [{ method: s.op === 'delete' ? 'DELETE' : 'POST', path: s.op === 'delete' ? path : `${path}/test`, headers: ADMIN }];
    }
    case 'call': {
      const r = s.req as Record<string, unknown>;
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      const token = key?.token ?? 'gwt_none';
      headers[r.keyHeader as string] = r.keyHeader === 'authorization' ? `Bearer ${token}` : token;
      if (r.customer !== undefined) headers['x-gateway-customer'] = r.customer as string;
      const route = r.route as string;
      const text = 'fuzz me';
      const body: Record<string, unknown> =
        route === '/v1/embeddings'
          ? { model: r.model, input: text }
          : route === '/v1/completions'
            ? { model: r.model, prompt: text }
            : route === '/v1/responses'
              ? { model: r.model, input: text }
              : { model: r.model, messages: [{ role: 'user', content: text }] };
      if (route !== '/v1/embeddings') {
        for (const f of ['stream', 'stream_options'] as const) if (r[f] !== undefined) body[f] = r[f];
        if (r.max_tokens !== undefined) body[route === '/v1/responses' ? 'max_output_tokens' : 'max_tokens'] = r.max_tokens;
        if (route === '/v1/messages') body.max_tokens ??= 16;
      }
      return [{ method: 'POST', path: route, headers, body: JSON.stringify(body) }];
    }
    case 'mcp': {
      const r = s.req;
      const headers = {
        authorization: `Bearer ${key?.token ?? 'gwt_none'}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-06-18',
      };
      const params =
        r.method === 'tools/call'
          ? { name: r.tool, arguments: r.arguments }
          : r.method === 'initialize'
            ? { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } }
            : {};
      return [{ method: 'POST', path: r.path, headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: r.method, params }) }];
    }
    case 'read': {
      const bearer = { authorization: `Bearer ${key?.token ?? 'gwt_none'}` };
      const q = new URLSearchParams(Object.entries(s.query).filter(([, v]) => typeof v === 'string')).toString();
      if (s.what === 'me') return [{ method: 'GET', path: '/v1/me', headers: bearer }];
      if (s.what === 'models') return [{ method: 'GET', path: '/v1/models', headers: bearer }];
      if (s.what === 'usage') return [{ method: 'GET', path: `/v1/admin/usage?${q}`, headers: ADMIN }];
      if (s.what === 'audit') return [{ method: 'GET', path: `/v1/admin/audit?${q}`, headers: ADMIN }];
      if (s.what === 'keys') return [{ method: 'GET', path: `/v1/auth/tokens?${q}`, headers: ADMIN }];
      return ['organizations', 'teams', 'users', 'budgets', 'credentials'].map((r) => ({ method: 'GET', path: `/v1/admin/${r}?${q}`, headers: ADMIN }));
    }
  }
}

/** A JSON-RPC error answer (the MCP transport's refusals). */
function isJsonRpcError(answer: Answer): boolean {
  const body = bodyOf(answer);
  return body?.jsonrpc === '2.0' && typeof body.error?.code === 'number' && typeof body.error.message === 'string';
}

/** Reads an answer's JSON body, or undefined. */
function bodyOf(answer: Answer): any {
  try {
    return JSON.parse(answer.text);
  } catch {
    return undefined;
  }
}

/**
 * The §8 admin API and the keys it makes, fuzzed as sequences: tenants, budgets (limits at
 * and past their bounds, windows of any period, kind and time zone), gateway keys with models,
 * limits, budgets and metadata of any value, their edits, rotations and blocks, held
 * credentials made, tested and deleted; between them, requests made with the newest key on
 * every priced route (streamed or not, any model name, any customer), /v1/me, /v1/models, the
 * usage report and the audit log. Whatever was accepted before, every answer is a success or
 * the contract's error body (never the gateway's own 500, so nothing the API accepted breaks a
 * later request), no answer holds a held credential or the admin token, and every listing
 * still reads.
 */
describe.each([['sqlite'], ['postgres']])('fuzz: keys, budgets and tenants through the admin API (%s)', { timeout: 900_000 }, (store) => {
  let world: FuzzWorld;
  const schema = `gw_fuzz_gov_${randomBytes(6).toString('hex')}`;
  const prefix = `gw-fuzz-gov-${randomBytes(6).toString('hex')}:`;
  const made: Made = { keys: [], budgets: [] };
  let closed = false;
  beforeAll(async () => {
    world = await startFuzzWorld({
      // warn: the ledger's failed writes are warnings (checked at the end)
      logging: { level: 'warn' },
      secrets: { key: 'ef'.repeat(32) },
      credentials: { 'held-config': { provider: 'openai', api_key: HELD.config }, 'held-groq': { provider: 'groq', api_key: HELD.groq } },
      models: {
        chat: { targets: [{ provider: 'openai', model: 'gpt-4o-mini', credential: 'held-config' }], price: { input: '0.000001', output: '0.000002' }, max_output_tokens: 1000 },
        cheap: {
          strategy: { mode: 'fallback' },
          targets: [
            { provider: 'groq', model: 'llama-3.1-8b-instant', credential: 'held-groq' },
            { provider: 'openai', model: 'gpt-4o-mini', credential: 'held-config' },
          ],
        },
        unpriced: { targets: [{ provider: 'openai', model: 'fuzz-unpriced-model', credential: 'held-config' }] },
        'openai/*': { targets: [{ provider: 'openai', credential: 'held-config' }] },
      },
      tenants: {
        organizations: { acme: { name: 'Acme' } },
        teams: { search: { organization: 'acme' }, ads: { organization: 'acme', models: ['chat'] } },
        users: { alice: { team: 'search' } },
      },
      budgets: { team: { search: { limit_usd: 5, window: { period: 'month' } } } },
      // The fuzz world's tool server, its calls priced (charged to the keys' budgets).
      mcpServers: {
        proc: {
          command: process.execPath,
          args: [join(here, '..', 'helpers', 'echo-credentials-tool-server.mjs')],
          env: { ECHO_VARS: 'SECRET', SECRET: CONFIGURED.toolEnv },
          toolPrices: { env: '0.001', fail: '0.5' },
        },
      },
      ...(store === 'postgres' ? { ...sharedStoreConfig('postgres', prefix, schema), ...sharedStoreConfig('redis', prefix, schema) } : {}),
    });
  });
  afterAll(async () => {
    if (!closed) await world?.close();
    if (store === 'postgres') for (const shared of ['postgres', 'redis'] as const) await dropSharedState(shared, prefix, schema);
    console.log(summary());
  });

  it('every sequence of admin writes, key edits and keyed requests is answered by the contract', async () => {
    await fuzz(`governance ${store}`, fc.array(step, { minLength: 1, maxLength: 6 }), RUNS(150), async (steps) => {
      for (const s of steps) {
        for (const req of requestOf(s, made)) {
          const answer = await send(world, req);
          countStatus(answer.status);
          const what = `${req.method} ${req.path} ${String(req.body ?? '').slice(0, 400)}`;
          expect(answer.status, `${what}: no answer`).not.toBe(0);
          // On /mcp the transport's own refusals may be JSON-RPC errors.
          if (answer.status >= 400 && !(s.kind === 'mcp' && isJsonRpcError(answer))) expectContractError(answer, what);
          else if (s.kind === 'read' && s.what !== 'usage') expect(bodyOf(answer), `${what}: ${answer.text.slice(0, 300)}`).toBeDefined();
          expectNoSecret(answer, [HELD.config, HELD.groq, ...HELD.api], what);
          const body = answer.status < 300 ? bodyOf(answer) : undefined;
          if (s.kind === 'key' && answer.status === 201) made.keys.push({ id: body.id, token: body.token });
          if (s.kind === 'key-edit' && s.op === 'rotate' && answer.status < 300 && typeof body?.token === 'string') made.keys.push({ id: body.id, token: body.token });
          if (s.kind === 'budget' && s.method === 'POST' && answer.status === 201) made.budgets.push(body.id);
          if (s.kind === 'budget' && s.method === 'DELETE' && answer.status < 300) made.budgets.pop();
        }
      }
      await expectHealthy(world);
    });
    // Whatever the cases left, every listing and every key's own view still reads.
    for (const r of ['organizations', 'teams', 'users', 'budgets', 'credentials']) {
      const answer = await send(world, { method: 'GET', path: `/v1/admin/${r}`, headers: ADMIN });
      expect(answer.status, `${r}: ${answer.text.slice(0, 300)}`).toBe(200);
    }
    for (const key of made.keys.slice(-20)) {
      const answer = await send(world, { method: 'GET', path: '/v1/me', headers: { authorization: `Bearer ${key.token}` } });
      if (answer.status !== 200) expectContractError(answer, `GET /v1/me ${key.id}`);
    }
    // Nothing the cases sent kept the ledger from writing its rows (closing writes what it holds), or failed the gateway unseen.
    await world.close();
    closed = true;
    const troubles = world.gw.logs.lines.filter((l) => /"level":50|usage ledger write failed|budget settle failed/.test(l));
    expect(troubles.map((l) => l.slice(0, 400))).toEqual([]);
  });
});
