import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GuardrailRegistry, GuardrailConfigError } from '../../../../src/features/guardrails/registry.js';
import { TextView } from '../../../../src/features/guardrails/text-view.js';
import { UpstreamClient } from '../../../../src/kernel/upstream/upstream-client.js';
import { createCheckRegistry } from '../../../../src/features/guardrails/check-kind.js';
import { BUILTIN_CHECKS } from '../../../../src/features/guardrails/checks/builtin-checks.js';
import { FakeUpstream } from '../../../helpers/fake-upstream.js';

const upstream = new UpstreamClient();
const run = { phase: 'input' as const, requestId: 'r1', signal: new AbortController().signal };

function view(...texts: string[]) {
  const written = [...texts];
  return { view: new TextView(texts.map((text, i) => ({ text, group: i, write: (t) => (written[i] = t) }))), written };
}

const checks = createCheckRegistry();
for (const check of BUILTIN_CHECKS) checks.register(check);

function registry(guardrails: Record<string, unknown>): GuardrailRegistry {
  return new GuardrailRegistry({ guardrails } as any, checks, () => upstream);
}

async function outcome(g: GuardrailRegistry, id: string, ...texts: string[]) {
  try {
    return await g.apply([id], view(...texts).view, run);
  } catch (err) {
    return (err as Error).message;
  }
}

describe('guardrail checks', () => {
  let hook: FakeUpstream;
  beforeAll(async () => {
    hook = await new FakeUpstream()
      .on('POST /ok', { json: { verdict: true } })
      .on('POST /no', { json: { verdict: false, reason: 'off-topic' } })
      .on('POST /bad', { json: { yes: 1 } })
      .on('POST /slow', { fault: 'hang' })
      .start();
  });
  afterAll(async () => {
    await hook.stop();
    await upstream.close();
  });

  it('regex fails on a match (or on no match with not: true)', async () => {
    const g = registry({
      secret: { checks: [{ type: 'regex', pattern: 'sk-[a-z0-9]+', flags: 'i' }] },
      ticket: { checks: [{ type: 'regex', pattern: 'TICKET-\\d+', not: true }] },
    });
    expect(await outcome(g, 'secret', 'my key is SK-abc123')).toBe('Guardrail "secret" denied the request: regex check failed (the pattern matched 1 time(s)).');
    expect(await outcome(g, 'secret', 'nothing here')).toBe('passed');
    expect(await outcome(g, 'ticket', 'no ticket')).toMatch(/regex check failed \(the text does not match the required pattern\)/);
    expect(await outcome(g, 'ticket', 'about TICKET-12')).toBe('passed');
  });

  it('contains: any, all and none, whole words, case-insensitive unless asked', async () => {
    const g = registry({
      any: { checks: [{ type: 'contains', words: ['refund', 'invoice'] }] },
      all: { checks: [{ type: 'contains', words: ['refund', 'invoice'], operator: 'all' }] },
      none: { checks: [{ type: 'contains', words: ['badword', 'very bad'], operator: 'none' }] },
      cased: { checks: [{ type: 'contains', words: ['ACME'], caseSensitive: true }] },
    });
    expect(await outcome(g, 'any', 'I want a REFUND')).toBe('passed');
    expect(await outcome(g, 'any', 'refunding is not a word match')).toMatch(/contains check failed \(0 of 2/);
    expect(await outcome(g, 'all', 'refund my invoice')).toBe('passed');
    expect(await outcome(g, 'all', 'refund please')).toMatch(/contains check failed/);
    expect(await outcome(g, 'none', 'this is Very Bad')).toMatch(/contains check failed \(1 of 2/);
    expect(await outcome(g, 'none', 'all fine')).toBe('passed');
    expect(await outcome(g, 'cased', 'acme corp')).toMatch(/failed/);
  });

  it('word and character counts', async () => {
    const g = registry({
      words: { checks: [{ type: 'wordCount', min: 2, max: 4 }] },
      chars: { checks: [{ type: 'characterCount', max: 5 }] },
    });
    expect(await outcome(g, 'words', 'one two three')).toBe('passed');
    expect(await outcome(g, 'words', 'one')).toMatch(/wordCount check failed \(1 words, expected at least 2 and at most 4\)/);
    expect(await outcome(g, 'chars', 'héllo')).toBe('passed');
    expect(await outcome(g, 'chars', 'hello!')).toMatch(/characterCount check failed \(6 characters, expected at most 5\)/);
  });

  it('JSON parse and JSON Schema (fenced JSON accepted)', async () => {
    const g = registry({
      json: { checks: [{ type: 'jsonParse' }] },
      schema: { checks: [{ type: 'jsonSchema', schema: { type: 'object', required: ['answer'], properties: { answer: { type: 'string' } } } }] },
    });
    expect(await outcome(g, 'json', '{"a":1}')).toBe('passed');
    expect(await outcome(g, 'json', 'Here:\n```json\n{"a":1}\n```')).toBe('passed');
    expect(await outcome(g, 'json', 'not json')).toMatch(/jsonParse check failed \(not valid JSON/);
    expect(await outcome(g, 'schema', '{"answer":"yes"}')).toBe('passed');
    expect(await outcome(g, 'schema', '{"answer":1}')).toMatch(/jsonSchema check failed \(does not match the schema \(\/answer must be string\)\)/);
  });

  it('model allow-list with globs', async () => {
    const g = registry({ models: { checks: [{ type: 'modelAllowList', models: ['gpt-4o*', 'claude-?-haiku'] }] } });
    const check = (model: string) => g.apply(['models'], view('hi').view, { ...run, model }).catch((e: Error) => e.message);
    expect(await check('gpt-4o-mini')).toBe('passed');
    expect(await check('claude-3-haiku')).toBe('passed');
    expect(await check('gpt-3.5-turbo')).toMatch(/modelAllowList check failed \(model gpt-3.5-turbo is not in the allow-list\)/);
  });

  it('flag marks, redact masks what pii matched', async () => {
    const g = registry({
      flagged: { action: 'flag', checks: [{ type: 'pii' }] },
      masked: { action: 'redact', checks: [{ type: 'pii', categories: ['email', 'ssn'] }] },
    });
    expect(await outcome(g, 'flagged', 'mail a@b.co')).toBe('flagged');
    const v = view('mail a@b.co', 'ssn 123-45-6789, phone 415-555-2671');
    expect(await g.apply(['masked'], v.view, run)).toBe('redacted');
    expect(v.written).toEqual(['mail [REDACTED_EMAIL]', 'ssn [REDACTED_SSN], phone 415-555-2671']);
  });

  it('a redact guardrail whose failing check has nothing to mask flags instead', async () => {
    const g = registry({ r: { action: 'redact', checks: [{ type: 'wordCount', max: 1 }] } });
    expect(await outcome(g, 'r', 'two words')).toBe('flagged');
  });

  it('asks a webhook for a verdict, failing closed when it does not answer properly', async () => {
    const g = registry({
      ok: { checks: [{ type: 'webhook', url: `${hook.url}/ok`, headers: { 'x-hook': 'secret' } }] },
      no: { checks: [{ type: 'webhook', url: `${hook.url}/no` }] },
      bad: { checks: [{ type: 'webhook', url: `${hook.url}/bad` }] },
      slow: { checks: [{ type: 'webhook', url: `${hook.url}/slow`, timeout: 200 }] },
    });
    expect(await outcome(g, 'ok', 'hello')).toBe('passed');
    const sent = hook.received('POST /ok')[0]!;
    expect(sent.json()).toEqual({ guardrail: 'ok', phase: 'input', text: 'hello', model: null, request_id: 'r1' });
    expect(sent.headers['x-hook']).toBe('secret');
    expect(await outcome(g, 'no', 'hello')).toBe('Guardrail "no" denied the request: webhook check failed (the webhook refused it: off-topic).');
    expect(await outcome(g, 'bad', 'hello')).toMatch(/no boolean verdict/);
    expect(await outcome(g, 'slow', 'hello')).toMatch(/did not answer within 200 ms/);
  });

  it('reports bad guardrail definitions at start-up with their key paths', () => {
    let problems: string[] = [];
    try {
      registry({
        a: { checks: [{ type: 'regex', pattern: '(' }] },
        b: { checks: [{ type: 'contains' }, { type: 'wordCount' }, { type: 'jsonSchema', schema: { type: 'nonsense' } }, { type: 'webhook', url: 'file:///x' }] },
      });
    } catch (err) {
      expect(err).toBeInstanceOf(GuardrailConfigError);
      problems = (err as GuardrailConfigError).problems;
    }
    expect(problems).toHaveLength(5);
    expect(problems[0]).toMatch(/^guardrails\.a\.checks\[0\]\.pattern: is not a valid regular expression/);
    expect(problems[1]).toBe('guardrails.b.checks[0].words: is required for a contains check (the words or phrases)');
    expect(problems[2]).toBe('guardrails.b.checks[1]: a wordCount check needs min or max');
    expect(problems[3]).toMatch(/^guardrails\.b\.checks\[2\]\.schema: is not a valid JSON Schema/);
    expect(problems[4]).toBe('guardrails.b.checks[3].url: must be an http(s) URL');
  });
});
