import { Ajv, type ValidateFunction } from 'ajv';
import type { JsonParseCheck } from '../../../generated/checks/jsonParse.js';
import type { JsonSchemaCheck } from '../../../generated/checks/jsonSchema.js';
import { schemaDocument } from '../../../kernel/config/schema-validator.js';
import { ExtensionConfigError } from '../../../kernel/engine/extension.js';
import { compileCheckedRegExp } from '../../../kernel/text/catastrophic-regex.js';
import { defineCheck } from '../check-kind.js';
import { need } from './need.js';

/** The operator's schema `pattern`s run on RegExp once their shape is checked (no catastrophic backtracking). */
function checkedPattern(pattern: string, flags: string): RegExp {
  try {
    return compileCheckedRegExp(pattern, flags);
  } catch (err) {
    throw new Error(`pattern ${JSON.stringify(pattern)} ${(err as Error).message}`);
  }
}

const ajv = new Ajv({ allErrors: false, strict: false, code: { regExp: Object.assign(checkedPattern, { code: 'new RegExp' }) } });

/**
 * Parses text as JSON, or the first ```json fenced block in it. A failure says nothing of why:
 * JSON.parse's message quotes the text it read, and a check's detail never holds the text checked.
 */
export function parseJsonText(text: string): { ok: true; value: unknown } | { ok: false } {
  const attempts = [text.trim()];
  const fenced = /```(?:json)?\s*([\s\S]*?)```/i.exec(text);
  if (fenced) attempts.push(fenced[1]!.trim());
  for (const candidate of attempts) {
    if (!candidate) continue;
    try {
      return { ok: true, value: JSON.parse(candidate) };
    } catch {
      // not JSON: the next candidate, else a failure
    }
  }
  return { ok: false };
}

/** Fails unless the text (or its first ```json block) is valid JSON. */
export const jsonParse = defineCheck<JsonParseCheck>({
  name: 'jsonParse',
  description: 'Fails unless the text is valid JSON.',
  schema: schemaDocument('checks/jsonParse.schema.json'),
  create:
    () =>
    ({ text }) => {
      const parsed = parseJsonText(text);
      return parsed.ok ? { passed: true, detail: 'valid JSON' } : { passed: false, detail: 'not valid JSON' };
    },
});

/** Fails unless the text, parsed as JSON, satisfies the schema. */
export const jsonSchema = defineCheck<JsonSchemaCheck>({
  name: 'jsonSchema',
  description: 'Fails unless the text, parsed as JSON, satisfies a JSON Schema.',
  schema: schemaDocument('checks/jsonSchema.schema.json'),
  create(check, { path }) {
    const problems: string[] = [];
    if (!need(check, 'schema', 'jsonSchema', 'the JSON Schema', path, problems)) throw new ExtensionConfigError(problems);
    let validate: ValidateFunction;
    try {
      validate = ajv.compile(check.schema!);
    } catch (err) {
      throw new ExtensionConfigError([`${path}.schema: is not a valid JSON Schema: ${(err as Error).message}`]);
    }
    return ({ text }) => {
      const parsed = parseJsonText(text);
      if (!parsed.ok) return { passed: false, detail: 'not valid JSON' };
      if (validate(parsed.value)) return { passed: true, detail: 'matches the schema' };
      const e = validate.errors?.[0];
      return { passed: false, detail: `does not match the schema (${e ? `${e.instancePath || '/'} ${e.message}` : 'invalid'})` };
    };
  },
});
