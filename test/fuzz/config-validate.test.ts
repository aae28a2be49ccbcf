import { afterAll, describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { parse } from 'yaml';
import { checkConfigText } from '../../src/cli/check.js';
import { checkConfigTree } from '../../src/config.js';
import { buildConfig } from '../../src/kernel/config/load-config.js';
import { fuzz, RUNS, summary } from './harness.js';

/** The variables the example configs reference, so that each checks clean before it is mutated. */
const ENV: Record<string, string> = {
  ALICE_GATEWAY_KEY: 'alice-gateway-key-0123456789',
  ANTHROPIC_API_KEY: 'sk-ant-fuzz-0123456789',
  DATABASE_URL: 'postgres://fuzz@127.0.0.1:5432/none',
  DOCS_MCP_TOKEN: 'docs-token-0123456789',
  DOCS_MCP_URL: 'http://127.0.0.1:9/mcp',
  GATEWAY_ADMIN_TOKEN: 'a'.repeat(40),
  GATEWAY_SECRET_KEY: 'ab'.repeat(32),
  IDENTITY_SIGNING_SECRET: 's'.repeat(40),
  OIDC_CLIENT_SECRET: 'oidc-secret-0123456789',
  OPENAI_API_KEY: 'sk-fuzz-0123456789',
  TEAM_A_KEY: 'team-a-key-0123456789',
  TEAM_B_KEY: 'team-b-key-0123456789',
  TICKETS_CLIENT_SECRET: 'tickets-secret-0123456789',
  TICKETS_MCP_URL: 'http://127.0.0.1:9/mcp',
  TICKETS_TOKEN_URL: 'http://127.0.0.1:9/token',
  TRACKER_CLIENT_SECRET: 'tracker-secret-0123456789',
};

const EXAMPLES = join(import.meta.dirname, '..', '..', 'examples', 'configs');
/** The shipped example configs (a plugin's file and the compose file aside): a catalogue, MCP gateways, the OAuth server, production. */
const BASES = readdirSync(EXAMPLES)
  .filter((f) => f.endsWith('.yaml') && f !== 'compose.yaml' && f !== 'with-plugin.yaml')
  .sort()
  .map((f) => parse(readFileSync(join(EXAMPLES, f), 'utf8')) as Record<string, unknown>);

type Path = Array<string | number>;

/** Every place in a config tree (the root aside). */
function places(value: unknown, at: Path = [], out: Path[] = []): Path[] {
  if (at.length) out.push(at);
  if (Array.isArray(value)) value.forEach((v, i) => places(v, [...at, i], out));
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) places(v, [...at, k], out);
  return out;
}

/** Values a config may be given where it should not: edge numbers, durations, patterns, URLs, empty shapes, anything. */
const value = fc.oneof(
  fc.constantFrom(
    null,
    true,
    false,
    0,
    -1,
    1.5,
    1e308,
    2 ** 53,
    '',
    ' ',
    '0',
    '-1',
    'x',
    '1s',
    '0s',
    '99999999d',
    'NaN',
    '*',
    '**',
    '[',
    'http://',
    'ftp://h',
    '\u0000',
    'a'.repeat(3000),
  ),
  fc.constantFrom([], {}, [null], [''], [{}], { x: 1 }, ['*']),
  fc.jsonValue({ maxDepth: 2 }),
);
/** Member names a mutation may add: the config's own words, so that an added member is often a known one. */
const MEMBER = fc.constantFrom(
  'x',
  'provider',
  'model',
  'targets',
  'strategy',
  'credential',
  'price',
  'window',
  'period',
  'timezone',
  'limit',
  'url',
  'command',
  'auth',
  'type',
  'mode',
  'weight',
  'on_status_codes',
  'retry',
  'attempts',
  'models',
  'budgets',
  'alerts',
  'checks',
  'pattern',
);
const mutation = fc.record({ place: fc.nat(), op: fc.constantFrom('set', 'set', 'delete', 'add'), value, member: MEMBER });

/** A base config with its mutations applied, each at a place of the tree as it then is. */
function mutated(base: number, mutations: Array<{ place: number; op: string; value: unknown; member: string }>): Record<string, unknown> {
  const config = structuredClone(BASES[base % BASES.length]!);
  for (const m of mutations) {
    const all = places(config);
    if (!all.length) break;
    const at = all[m.place % all.length]!;
    let parent: any = config;
    for (const k of at.slice(0, -1)) parent = parent[k];
    const last = at.at(-1)!;
    if (m.op === 'set') parent[last] = structuredClone(m.value);
    else if (m.op === 'delete') {
      if (Array.isArray(parent)) parent.splice(last as number, 1);
      else delete parent[last];
    } else if (parent[last] && typeof parent[last] === 'object' && !Array.isArray(parent[last])) parent[last][m.member] = structuredClone(m.value);
  }
  return config;
}

/**
 * POST /v1/admin/config/validate and --check: the example configs with up to three mutations
 * (a value replaced by an edge value or anything, a member removed or added). The check never
 * throws; a config the checks accept compiles or is refused naming its problem, never with the
 * compiler's own failure ("gateway failed to start: ..."); and every problem is a line of text.
 */
describe('fuzz: config validation', { timeout: 600_000 }, () => {
  const saved = { ...process.env };
  Object.assign(process.env, ENV);
  afterAll(() => {
    for (const k of Object.keys(ENV)) if (saved[k] === undefined) delete process.env[k];
    console.log(summary());
  });

  it('every example config checks clean before it is mutated', async () => {
    const running = buildConfig({}, 'fuzz');
    for (const base of BASES) expect(await checkConfigText(JSON.stringify(base), 'body', running)).toEqual([]);
  });

  it('a config key the checks refused is not also named by the compiler without its key', async () => {
    const running = buildConfig({}, 'fuzz');
    const config = {
      auth: {
        adminToken: 'a'.repeat(40),
        apiKeys: [
          { key: 'team-a-key-0123456789', user: 'a' },
          { key: ' ', user: 'b' },
        ],
      },
    };
    const problems = await checkConfigText(JSON.stringify(config), 'body', running);
    expect(problems).toContain('auth.apiKeys[1].key: must be at least 8 characters');
    for (const line of problems) expect(line).toMatch(/^auth\.apiKeys(\[\d+\]\.key)?: /);
  });

  it('a mutated config is valid, or refused with its problems named: the check itself never fails', async () => {
    const running = buildConfig({}, 'fuzz');
    const cases = fc.record({ base: fc.nat(), mutations: fc.array(mutation, { minLength: 1, maxLength: 3 }) });
    let valid = 0;
    await fuzz('config validation', cases, RUNS(60), async ({ base, mutations }) => {
      const config = mutated(base, mutations);
      const what = JSON.stringify(config).slice(0, 600);
      const problems = await checkConfigText(JSON.stringify(config), 'body', running);
      for (const line of problems) expect(typeof line, what).toBe('string');
      const failed = problems.filter((l) => l.startsWith('gateway failed to start'));
      expect(failed, `${what}\nchecks: ${JSON.stringify(checkConfigTree(config, 'body').problems)}`).toEqual([]);
      if (problems.length === 0) valid++;
    });
    // Some mutations keep the config valid (a value the schema allows, a member removed that has a default): those were compiled whole.
    console.log(`config validation: ${valid} mutated configs valid and compiled`);
    expect(valid).toBeGreaterThan(0);
  });
});
