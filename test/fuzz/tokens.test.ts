import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import pg from 'pg';
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
  send,
  startFuzzWorld,
  summary,
  type FuzzWorld,
} from './harness.js';

const PG_URL = process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const json = fc.jsonValue({ maxDepth: 3 });

const good = {
  user: 'alice@example.com',
  team: 'team-a',
  email: 'alice@example.com',
  name: 'Alice',
  roles: ['reader'],
  organization: 'org-1',
  scopes: ['mcp:read', 'mcp:write'],
  permissions: { servers: ['proc'], tools: ['proc__*'] },
  expiresIn: '30d',
};

/** A token request: a good one with one field broken or dropped, the spec's fields each sometimes broken, or anything at all. */
const createBody = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .record({
        field: fc.constantFrom(...Object.keys(good)),
        value: fc.oneof(nastyString, json, fc.constantFrom('3650d', '3651d', '1s', '0s', '99999999999999d')),
        drop: fc.boolean(),
      })
      .map(({ field, value, drop }) => {
        const out: Record<string, unknown> = { ...good };
        if (drop) delete out[field];
        else out[field] = value;
        return JSON.stringify(out);
      }),
  },
  {
    weight: 5,
    arbitrary: fc
      .record(
        {
          user: fc.oneof(fc.constantFrom('alice', 'bob@example.com'), nastyString, json),
          team: fc.oneof(fc.constant('team-a'), nastyString),
          email: nastyString,
          name: nastyString,
          roles: fc.oneof(fc.array(nastyString, { maxLength: 3 }), json),
          organization: nastyString,
          scopes: fc.oneof(fc.subarray(['mcp:read', 'mcp:write']), fc.array(nastyString, { maxLength: 2 })),
          permissions: fc.oneof(fc.record({ servers: fc.array(nastyString, { maxLength: 2 }), tools: fc.array(nastyString, { maxLength: 2 }) }, { requiredKeys: [] }), json),
          expiresIn: fc.oneof(
            fc.constantFrom('30d', '1s', '0s', '3650d', '3651d', '87600h', '99999999999d', '999999999999999999999d', '1.5d', '-1d', '1w', ''),
            fc.tuple(fc.bigInt({ min: 0n, max: 10n ** 25n }), fc.constantFrom('d', 'h', 'm', 's')).map(([n, u]) => `${n}${u}`),
            nastyString,
          ),
          extra: json,
        },
        { requiredKeys: ['user'] },
      )
      .map((b) => JSON.stringify(b)),
  },
  { weight: 1, arbitrary: json.map((v) => JSON.stringify(v)) },
  { weight: 1, arbitrary: nastyString },
);

const ADMIN_CHOICES = ['admin', 'admin', 'admin', 'none', 'wrong', 'caller-secret', 'lowercase-scheme'] as const;

function authHeader(choice: (typeof ADMIN_CHOICES)[number]): Record<string, string> {
  switch (choice) {
    case 'admin':
      return { authorization: `Bearer ${CONFIGURED.admin}` };
    case 'lowercase-scheme':
      return { authorization: `bearer ${CONFIGURED.admin}` };
    case 'wrong':
      return { authorization: `Bearer ${CONFIGURED.admin.slice(0, -1)}x` };
    case 'caller-secret':
      return { authorization: `Bearer ${CALLER_SECRETS[0]}` };
    default:
      return {};
  }
}

/** One token operation: create, list, revoke or rotate (an id issued earlier, or any). */
const operation = fc.record({
  kind: fc.constantFrom('create', 'create', 'create', 'list', 'revoke', 'rotate'),
  body: createBody,
  auth: fc.constantFrom(...ADMIN_CHOICES),
  id: fc.oneof(fc.constant('issued'), fc.stringMatching(/^[A-Za-z0-9_%.-]{1,40}$/), fc.constantFrom('..', '%00', 'tok_', 'tok_' + 'f'.repeat(24))),
  contentType: fc.constantFrom('application/json', 'application/json', 'text/plain', ''),
});

/**
 * The token operations on SQLite and on PostgreSQL: generated bodies (every field broken in
 * turn, lifetimes up to absurd), credentials right and wrong, ids real and invented. Every
 * answer is a success of the right shape or the contract's error body (never a 500 from a
 * store), never shows the admin token, and /health stays 200.
 */
describe.each([['sqlite'], ['postgres']])('fuzz: token operations (%s)', { timeout: 600_000 }, (store) => {
  let world: FuzzWorld;
  const schema = `gw_fuzz_${randomBytes(6).toString('hex')}`;
  const issued: string[] = [];
  beforeAll(async () => {
    world = await startFuzzWorld(store === 'postgres' ? { storage: { type: 'postgres', url: PG_URL, schema } } : {});
  });
  afterAll(async () => {
    await world?.close();
    if (store === 'postgres') {
      const client = new pg.Client({ connectionString: PG_URL });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    }
    console.log(summary());
  });

  it('create, list, revoke and rotate', async () => {
    await fuzz(`tokens ${store}`, operation, RUNS(150), async (op) => {
      const headers: Record<string, string> = { ...authHeader(op.auth) };
      if (op.contentType) headers['content-type'] = op.contentType;
      const id = op.id === 'issued' ? (issued.at(-1) ?? 'tok_none') : op.id;
      const req =
        op.kind === 'create'
          ? { method: 'POST', path: '/v1/auth/tokens', headers, body: op.body }
          : op.kind === 'list'
            ? { method: 'GET', path: '/v1/auth/tokens', headers }
            : op.kind === 'revoke'
              ? { method: 'DELETE', path: `/v1/auth/tokens/${id}`, headers }
              : { method: 'POST', path: `/v1/auth/tokens/${id}/rotate`, headers };
      const answer = await send(world, req);
      countStatus(answer.status);
      const what = `${req.method} ${req.path} ${op.auth} ${String(req.body ?? '').slice(0, 300)}`;
      expect(answer.status, `${what}: ${answer.text.slice(0, 300)}`).not.toBe(0);
      if (answer.status >= 400) expectContractError(answer, what);
      else {
        const body = JSON.parse(answer.text);
        if (op.kind === 'create') {
          expect(answer.status, what).toBe(201);
          expect(body).toMatchObject({ object: 'auth.token', token: expect.stringMatching(/^gwt_/), revoked_at: null });
          expect(body.expires_at - body.created_at, what).toBeLessThanOrEqual(3650 * 86_400);
          issued.push(body.id);
        } else if (op.kind === 'list') expect(body).toMatchObject({ object: 'list', has_more: false });
        else expect(body).toMatchObject({ object: 'auth.token', id });
      }
      expectNoSecret(answer, [], what);
      await expectHealthy(world);
    });
  });
});
