import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { maskable, redactAnswer, redactAnswerBytes, redactingStream, redactLogLine, redactSecrets, registerSecrets, REDACTED } from '../../src/kernel/errors/redact.js';
import { FakeUpstream } from '../helpers/fake-upstream.js';
import { startGateway, type TestGateway } from '../helpers/start-gateway.js';
import { CHAT, chatBody, post } from '../helpers/routing-harness.js';
import { RUNS, fuzz, summary } from './harness.js';

/**
 * Nested secrets: a random secret (quotes, backslashes, slashes, percent signs, spaces,
 * non-ASCII and astral characters) inside random text, the whole encoded by a random chain of
 * the encodings the gateway and the services around it apply (JSON string escaping, with
 * non-ASCII, every or some characters as \u escapes in either hex case; URL encoding, `+` for
 * spaces or not; at most one URL encoding, up to six JSON levels). Whatever the chain, the
 * masked text decodes back through the same chain (masking never cuts an escape in two) to text
 * without the secret and with [REDACTED] where it was.
 */

type Step = { kind: 'json'; unicode: 'none' | 'ascii' | 'all' | 'some'; upper: boolean; seed: number } | { kind: 'url'; plus: boolean };

const hex = (c: string, upper: boolean) => {
  const h = c.charCodeAt(0).toString(16).padStart(4, '0');
  return `\\u${upper ? h.toUpperCase() : h}`;
};

function encode(text: string, step: Step): string {
  if (step.kind === 'url') {
    const url = encodeURIComponent(text);
    return step.plus ? url.replace(/%20/g, '+') : url;
  }
  const json = JSON.stringify(text).slice(1, -1);
  if (step.unicode === 'none') return json;
  if (step.unicode === 'ascii') return json.replace(/[\u007f-\uffff]/g, (c) => hex(c, step.upper));
  let n = step.seed;
  // Every character (or a pseudo-random some of them) as a \u escape instead of its JSON spelling.
  return text
    .split('')
    .map((c) => ((n = (n * 1103515245 + 12345) >>> 0), step.unicode === 'all' || n % 3 === 0 ? hex(c, step.upper) : JSON.stringify(c).slice(1, -1)))
    .join('');
}

function decode(text: string, step: Step): string {
  if (step.kind === 'url') return decodeURIComponent(step.plus ? text.replace(/\+/g, ' ') : text);
  return JSON.parse(`"${text}"`) as string;
}

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('json' as const), unicode: fc.constantFrom('none', 'ascii', 'all', 'some'), upper: fc.boolean(), seed: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('url' as const), plus: fc.boolean() }) },
);

const isUnicode = (s: Step) => s.kind === 'json' && (s.unicode === 'all' || s.unicode === 'some');

/** Chains of up to `json` JSON levels (at most `unicode` of them \u-escaping every or some character) and at most one URL encoding, in any order. */
const chainOf = (json: number, unicode: number) =>
  fc
    .array(step, { minLength: 1, maxLength: json + 1 })
    .filter((steps) => steps.filter((s) => s.kind === 'url').length <= 1 && steps.filter((s) => s.kind === 'json').length <= json && steps.filter(isUnicode).length <= unicode);
const chain = chainOf(6, 2);

const secretChar = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...'abcdefghijkXYZ0123456789-_.') },
  { weight: 3, arbitrary: fc.constantFrom('"', '\\', '/', '%', '+', ' ', '&', '=', "'", '\n', '\t', '<') },
  { weight: 2, arbitrary: fc.constantFrom('é', 'ü', 'κ', 'λ', '日', '€', '😀', '🔑') },
);
/** Secrets the redactor masks: `min` characters or more (8 at least, see maskable), not a bare literal, number or scheme word. */
const secretOf = (min: number) =>
  fc
    .array(secretChar, { minLength: min, maxLength: 40 })
    .map((cs) => cs.join(''))
    .filter(maskable);
const secret = secretOf(8);
/** Text around it: ordinary prose, JSON punctuation, escapes of its own. */
const around = fc.array(fc.constantFrom('the key ', '{"k":"', '"}', ' \\ ', '%41 ', 'é', ': ', '\n', 'a+b ', '😀', 'x'), { maxLength: 6 }).map((p) => p.join(''));

const decodeAll = (text: string, steps: Step[]) => steps.reduceRight((t, s) => decode(t, s), text);
const encodeAll = (text: string, steps: Step[]) => steps.reduce((t, s) => encode(t, s), text);

/** The longest the value's spelling can be in the text ('some' may escape every character there). */
const longestSpelling = (value: string, steps: Step[]) =>
  encodeAll(
    value,
    steps.map((s) => (isUnicode(s) ? { ...s, unicode: 'all' as const } : s)),
  ).length;

async function streamed(text: string, secrets: string[], size: number): Promise<string> {
  const out: Buffer[] = [];
  const stream = redactingStream(secrets);
  stream.on('data', (c: Buffer) => out.push(c));
  const done = new Promise((r) => stream.on('end', r));
  const bytes = Buffer.from(text, 'utf8');
  for (let i = 0; i < bytes.length; i += size) stream.write(bytes.subarray(i, i + size));
  stream.end();
  await done;
  return Buffer.concat(out).toString('utf8');
}

describe('fuzz: nested secrets never survive the redactor', { timeout: 600_000 }, () => {
  afterAll(() => console.log(summary()));

  it("a request's secret, in answers, error texts, bytes and streams", async () => {
    await fuzz('nested request secret', fc.tuple(secret, around, around, chain, fc.integer({ min: 1, max: 64 })), RUNS(400), async ([value, before, after, steps, size]) => {
      const plain = `${before}${value}${after}`;
      const text = encodeAll(plain, steps);
      const what = `${JSON.stringify(value)} through ${JSON.stringify(steps)}`;
      for (const [how, out] of [
        ['answer', redactAnswer(text, [value])],
        ['error text', redactSecrets(text, [value])],
        ['bytes', redactAnswerBytes(Buffer.from(text, 'utf8'), [value]).toString('utf8')],
        // A stream holds back 12 characters per secret character (see redactingStream): spellings up to that long.
        ...(longestSpelling(value, steps) <= value.length * 12 ? [['stream', await streamed(text, [value], size)] as const] : []),
      ] as const) {
        let back: string;
        try {
          back = decodeAll(out, steps);
        } catch (err) {
          throw new Error(`${how}: ${what}: the masked text no longer decodes (${(err as Error).message}): ${text} -> ${out}`);
        }
        expect(back.includes(value), `${how}: ${what} -> ${out}`).toBe(false);
        expect(back, `${how}: ${what}`).toContain(REDACTED);
      }
    });
  });

  it("the gateway's registered secrets, in answers and log lines", async () => {
    // The gateway's secrets add up from case to case: long enough that none of them is found in the text of a later case by chance.
    await fuzz('nested gateway secret', fc.tuple(secretOf(12), around, chain), RUNS(300), async ([value, before, steps]) => {
      registerSecrets([value]);
      const text = encodeAll(`${before}${value}`, steps);
      for (const [how, out] of [
        ['answer', redactAnswer(text)],
        ['log line', redactLogLine(JSON.stringify({ msg: 'upstream said', body: text }))],
      ] as const) {
        const inner = how === 'log line' ? (JSON.parse(out) as { body: string }).body : out;
        const back = decodeAll(inner, steps);
        expect(back.includes(value), `${how}: ${JSON.stringify(value)} through ${JSON.stringify(steps)} -> ${out}`).toBe(false);
      }
    });
  });
});

describe('fuzz: a provider key echoed through a random chain never reaches the caller', { timeout: 600_000 }, () => {
  let gw: TestGateway;
  let upstream: FakeUpstream;
  let steps: Step[] = [];

  beforeAll(async () => {
    upstream = await new FakeUpstream().start();
    // The upstream answers 400 with the key it received, its body spelled through the chain of the case.
    upstream.on('POST /v1/chat/completions', (req, res) => {
      const key = String(req.headers.authorization).replace(/^Bearer /, '');
      res.writeHead(400, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(encodeAll(`invalid key ${key} given`, steps));
    });
    gw = await startGateway({ logging: { level: 'error' }, providers: { openai: { baseUrl: `${upstream.url}/v1` } } });
  });
  afterAll(async () => {
    await gw?.close();
    await upstream?.stop();
  });

  /** Keys a header can carry (visible ASCII, quotes and backslashes included). */
  const headerKey = fc
    .array(fc.constantFrom(...'abcdefXYZ0123456789-_.', '"', '\\', '/', '%', '+', '=', "'", '&'), { minLength: 8, maxLength: 40 })
    .map((cs) => `sk-${cs.join('')}`);

  it('error.message and error.debug.upstream_body hold it in no spelling', async () => {
    await fuzz('nested key over sockets', fc.tuple(headerKey, chainOf(3, 1)), RUNS(60), async ([key, chosen]) => {
      steps = chosen;
      const res = await post(gw.url, CHAT, chatBody(), { 'x-gateway-provider': 'openai', 'x-gateway-api-key': key, 'x-gateway-debug': 'true' });
      const what = `${JSON.stringify(key)} through ${JSON.stringify(chosen)}`;
      expect(res.status, what).toBe(400);
      expect(res.text.includes(key), what).toBe(false);
      expect(res.text.includes(JSON.stringify(key).slice(1, -1)), what).toBe(false);
      const body = res.json.error.debug.upstream_body as string;
      expect(decodeAll(body, chosen), what).toBe(`invalid key ${REDACTED} given`);
    });
  });
});
