import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { countStatus, expectContractError, expectHealthy, fuzz, RUNS, send, startFuzzWorld, summary, type FuzzWorld } from './harness.js';

/** Shapes that make a backtracking engine take exponential or high-polynomial time. */
const ADVERSARIAL = ['^(a+)+$', '(a*)*$', '(a|a)*$', '(a|ab)*c', '^(\\w+\\s?)*$', '(.*a){25}', '(x+x+)+y', '^(a|aa)+$', '((a)\\2)+$', '(?=(a+))\\1b', '(a?){30}a{30}'];
const ATOMS = ['a', 'b', '.', '\\w', '\\d', '\\s', '[ab]', '[^!]', '\\1', '(?=a)', '(?<!b)', '\\b', '^', '$', '\\u0061', '\\k<n>', '[', ')', '\\'];
const QUANTIFIERS = ['', '', '*', '+', '?', '{2}', '{1,}', '{0,40}', '{1001}', '*?', '++'];

/** A pattern: random text, a known adversarial shape, or pieces nested under quantifiers and alternation. */
const pattern: fc.Arbitrary<string> = fc.oneof(
  { weight: 2, arbitrary: fc.constantFrom(...ADVERSARIAL) },
  { weight: 1, arbitrary: fc.string({ maxLength: 24 }) },
  {
    weight: 4,
    arbitrary: fc.letrec<{ node: string }>((tie) => ({
      node: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        fc.tuple(fc.constantFrom(...ATOMS), fc.constantFrom(...QUANTIFIERS)).map(([a, q]) => a + q),
        fc
          .tuple(fc.array(tie('node'), { minLength: 1, maxLength: 3 }), fc.constantFrom('(', '(?:', '(?<n>'), fc.constantFrom(...QUANTIFIERS))
          .map(([items, open, q]) => `${open}${items.join('')})${q}`),
        fc.tuple(tie('node'), tie('node'), fc.constantFrom(...QUANTIFIERS)).map(([x, y, q]) => `(${x}|${y})${q}`),
      ),
    })).node,
  },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 400 }).map((n) => `${'(a+)'.repeat(n)}$`) },
);

/** What the pattern is tested against: long runs of a letter ending in a mismatch, or any text. */
const subject = fc.oneof(
  fc.tuple(fc.constantFrom('a', 'ab', 'x'), fc.integer({ min: 0, max: 3000 }), fc.constantFrom('!', '', 'b', 'y')).map(([s, n, end]) => s.repeat(n) + end),
  fc.string({ maxLength: 40 }),
);

const caseArb = fc.record({
  pattern,
  subject,
  field: fc.constantFrom('params.model', 'params.user', 'metadata.tier'),
  combinator: fc.constantFrom('plain', '$and', '$or'),
});

/**
 * Caller routing configs whose conditions carry random `$regex` patterns (adversarial shapes
 * included) against long hostile values: every answer is a 2xx or the contract's error body (a 4xx
 * for a refused pattern), never the gateway's own 500, and the gateway keeps answering (each request within the harness's 20 s bound, /health after).
 */
describe('fuzz: caller $regex patterns in routing configs', { timeout: 600_000 }, () => {
  let world: FuzzWorld;
  beforeAll(async () => {
    world = await startFuzzWorld();
  });
  afterAll(async () => {
    await world?.close();
    console.log(summary());
  });

  it('answers every pattern with a 2xx or a contract 4xx and never stalls', async () => {
    let refused = 0;
    let served = 0;
    await fuzz('caller $regex', caseArb, RUNS(200), async ({ pattern, subject, field, combinator }) => {
      const condition = { [field]: { $regex: pattern } };
      const query = combinator === 'plain' ? condition : { [combinator]: [condition, { 'params.model': { $ne: 'z' } }] };
      const config = {
        strategy: { mode: 'conditional', conditions: [{ query, then: 'hit' }], default: 'miss' },
        targets: [
          { name: 'hit', provider: 'openai', override_params: { temperature: 0.5 } },
          { name: 'miss', provider: 'openai' },
        ],
      };
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        'x-gateway-api-key': 'sk-fuzz-caller-key-000001',
        'x-gateway-config': JSON.stringify(config).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`),
      };
      if (field === 'metadata.tier')
        headers['x-gateway-metadata'] = JSON.stringify({ tier: subject }).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
      const body = JSON.stringify({ model: field === 'params.model' ? subject || 'm' : 'gpt-4o-mini', user: subject, messages: [{ role: 'user', content: 'Hi' }] });
      const answer = await send(world, { method: 'POST', path: '/v1/chat/completions', headers, body });
      countStatus(answer.status);
      const what = `pattern ${JSON.stringify(pattern)} on ${field} (${subject.length} chars)`;
      if (answer.status === 0) throw new Error(`${what}: the connection was closed without an answer`);
      if (answer.status >= 400) {
        // The contract's body with its status; never the gateway's own 500 (the echo upstream may answer 5xx itself).
        expectContractError(answer, what);
        if (answer.status === 400) refused++;
      } else {
        expect(answer.status, what).toBeLessThan(300);
        served++;
      }
      await expectHealthy(world);
    });
    // The generator reaches both outcomes.
    expect(refused).toBeGreaterThan(0);
    expect(served).toBeGreaterThan(0);
  });
});
