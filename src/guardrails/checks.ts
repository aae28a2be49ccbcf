import { Ajv, type ValidateFunction } from 'ajv';
import type { GuardrailCheck } from '../generated/gateway.js';
import type { UpstreamClient } from '../upstream/upstream-client.js';
import { findPii, PII_CATEGORIES, piiMask, type PiiCategory } from './pii.js';
import type { Redaction } from './text-view.js';
import { callWebhook } from './webhook.js';

export interface CheckInput {
  text: string;
  /** Whether there is any text at all (false for requests without a prompt). */
  hasText: boolean;
  phase: 'input' | 'output';
  model?: string;
  guardrailId: string;
  requestId: string;
  signal: AbortSignal;
}

export interface CheckResult {
  passed: boolean;
  /** What was found or missing, for error messages (never the matched text itself). */
  detail: string;
  /** Spans a redact action masks. */
  redactions?: Redaction[];
}

export interface CompiledCheck {
  type: GuardrailCheck['type'];
  run(input: CheckInput): CheckResult | Promise<CheckResult>;
}

const ajv = new Ajv({ allErrors: false, strict: false });

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A word or phrase as a pattern: whole words where it starts or ends with a word character. */
function phrasePattern(phrase: string, caseSensitive: boolean): RegExp {
  const head = /^\w/.test(phrase) ? '\\b' : '';
  const tail = /\w$/.test(phrase) ? '\\b' : '';
  return new RegExp(`${head}${escapeRegExp(phrase)}${tail}`, caseSensitive ? 'g' : 'gi');
}

function globPattern(glob: string): RegExp {
  return new RegExp(`^${glob.split('*').map((part) => part.split('?').map(escapeRegExp).join('.')).join('.*')}$`, 'i');
}

/** Parses text as JSON, or the first ```json fenced block in it. */
export function parseJsonText(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  const attempts = [text.trim()];
  const fenced = /```(?:json)?\s*([\s\S]*?)```/i.exec(text);
  if (fenced) attempts.push(fenced[1]!.trim());
  let error = 'empty text';
  for (const candidate of attempts) {
    if (!candidate) continue;
    try {
      return { ok: true, value: JSON.parse(candidate) };
    } catch (err) {
      error = (err as Error).message;
    }
  }
  return { ok: false, error };
}

function countCheck(check: GuardrailCheck, label: string, count: (text: string) => number): CompiledCheck['run'] {
  return ({ text }) => {
    const n = count(text);
    const tooFew = check.min !== undefined && n < check.min;
    const tooMany = check.max !== undefined && n > check.max;
    const passed = !tooFew && !tooMany;
    const bounds = [check.min !== undefined ? `at least ${check.min}` : '', check.max !== undefined ? `at most ${check.max}` : ''].filter(Boolean).join(' and ');
    return { passed, detail: passed ? `${n} ${label}` : `${n} ${label}, expected ${bounds}` };
  };
}

/**
 * Compiles one check of a guardrail (patterns, schemas, globs prepared once). Problems are
 * pushed as `<path>.<key>: <message>` lines.
 */
export function compileCheck(check: GuardrailCheck, path: string, problems: string[], upstream: () => UpstreamClient): CompiledCheck | undefined {
  const need = (key: keyof GuardrailCheck, what: string) => {
    if (check[key] === undefined) {
      problems.push(`${path}.${key}: is required for a ${check.type} check (${what})`);
      return false;
    }
    return true;
  };
  switch (check.type) {
    case 'regex': {
      if (!need('pattern', 'the pattern')) return undefined;
      let re: RegExp;
      try {
        const flags = check.flags ?? '';
        re = new RegExp(check.pattern!, flags.includes('g') ? flags : `${flags}g`);
      } catch (err) {
        problems.push(`${path}.pattern: is not a valid regular expression: ${(err as Error).message}`);
        return undefined;
      }
      const invert = check.not === true;
      return {
        type: 'regex',
        run: ({ text }) => {
          const redactions: Redaction[] = [];
          for (const m of text.matchAll(re)) if (m[0].length) redactions.push({ start: m.index!, end: m.index! + m[0].length, mask: '[REDACTED]' });
          const matched = redactions.length > 0;
          if (invert) return { passed: matched, detail: matched ? 'the pattern matched' : 'the text does not match the required pattern' };
          return { passed: !matched, detail: matched ? `the pattern matched ${redactions.length} time(s)` : 'no match', redactions };
        },
      };
    }
    case 'contains': {
      if (!need('words', 'the words or phrases')) return undefined;
      const patterns = check.words!.map((w) => ({ word: w, re: phrasePattern(w, check.caseSensitive === true) }));
      const operator = check.operator ?? 'any';
      const invert = check.not === true;
      return {
        type: 'contains',
        run: ({ text }) => {
          const redactions: Redaction[] = [];
          let present = 0;
          for (const { re } of patterns) {
            let hit = false;
            for (const m of text.matchAll(re)) {
              hit = true;
              redactions.push({ start: m.index!, end: m.index! + m[0].length, mask: '[REDACTED]' });
            }
            if (hit) present++;
          }
          let passed = operator === 'any' ? present > 0 : operator === 'all' ? present === patterns.length : present === 0;
          if (invert) passed = !passed;
          const detail = `${present} of ${patterns.length} listed word(s) present (operator ${operator}${invert ? ', inverted' : ''})`;
          // Only words that are present and must not be can be masked.
          const maskable = !passed && (operator === 'none') !== invert;
          return { passed, detail, redactions: maskable ? redactions : undefined };
        },
      };
    }
    case 'wordCount':
      if (check.min === undefined && check.max === undefined) {
        problems.push(`${path}: a wordCount check needs min or max`);
        return undefined;
      }
      return { type: 'wordCount', run: countCheck(check, 'words', (t) => (t.trim() ? t.trim().split(/\s+/).length : 0)) };
    case 'characterCount':
      if (check.min === undefined && check.max === undefined) {
        problems.push(`${path}: a characterCount check needs min or max`);
        return undefined;
      }
      return { type: 'characterCount', run: countCheck(check, 'characters', (t) => [...t].length) };
    case 'jsonParse':
      return {
        type: 'jsonParse',
        run: ({ text }) => {
          const parsed = parseJsonText(text);
          return parsed.ok ? { passed: true, detail: 'valid JSON' } : { passed: false, detail: `not valid JSON (${parsed.error})` };
        },
      };
    case 'jsonSchema': {
      if (!need('schema', 'the JSON Schema')) return undefined;
      let validate: ValidateFunction;
      try {
        validate = ajv.compile(check.schema!);
      } catch (err) {
        problems.push(`${path}.schema: is not a valid JSON Schema: ${(err as Error).message}`);
        return undefined;
      }
      return {
        type: 'jsonSchema',
        run: ({ text }) => {
          const parsed = parseJsonText(text);
          if (!parsed.ok) return { passed: false, detail: `not valid JSON (${parsed.error})` };
          if (validate(parsed.value)) return { passed: true, detail: 'matches the schema' };
          const e = validate.errors?.[0];
          return { passed: false, detail: `does not match the schema (${e ? `${e.instancePath || '/'} ${e.message}` : 'invalid'})` };
        },
      };
    }
    case 'pii': {
      const categories = new Set<PiiCategory>((check.categories as PiiCategory[] | undefined) ?? PII_CATEGORIES);
      return {
        type: 'pii',
        run: ({ text }) => {
          const found = findPii(text, categories);
          if (!found.length) return { passed: true, detail: 'no personal data' };
          const kinds = [...new Set(found.map((f) => f.category))];
          return {
            passed: false,
            detail: `found ${kinds.join(', ')}`,
            redactions: found.map((f) => ({ start: f.start, end: f.end, mask: piiMask(f.category) })),
          };
        },
      };
    }
    case 'modelAllowList': {
      if (!need('models', 'the allowed models')) return undefined;
      const allowed = check.models!.map(globPattern);
      return {
        type: 'modelAllowList',
        run: ({ model }) => {
          if (model === undefined) return { passed: true, detail: 'no model in the request' };
          const ok = allowed.some((re) => re.test(model));
          return { passed: ok, detail: ok ? `model ${model} is allowed` : `model ${model} is not in the allow-list` };
        },
      };
    }
    case 'webhook': {
      if (!need('url', 'the address to ask')) return undefined;
      if (!/^https?:\/\//i.test(check.url!)) {
        problems.push(`${path}.url: must be an http(s) URL`);
        return undefined;
      }
      const url = check.url!;
      const headers = check.headers ?? {};
      const timeout = check.timeout ?? 5000;
      return { type: 'webhook', run: (input) => callWebhook(upstream(), url, headers, timeout, input) };
    }
    default:
      problems.push(`${path}.type: unknown check type ${String((check as GuardrailCheck).type)}`);
      return undefined;
  }
}
