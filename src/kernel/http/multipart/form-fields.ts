import type { ValidateFunction } from 'ajv';
import { firstProblem, validatorFor } from '../../config/schema-validator.js';
import { badRequest } from '../../errors/request-error.js';
import type { FormFields } from './multipart-upload.js';

const NUMBER = /^\s*-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/;

/**
 * Form fields are text; the request schema says what each one is. Numbers, integers and
 * booleans are read from their text (a field that does not read as one stays text, so the
 * schema names it); array fields take every value sent (`name[]` or repeated `name`).
 * Fields the schema does not know pass as they are.
 */
/** The part of a JSON Schema property that says what type(s) a field is. */
export interface FieldSchema {
  type?: string | string[];
}

export function typedFields(fields: FormFields, schema: { properties?: Record<string, FieldSchema | undefined> }): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const props = schema.properties ?? {};
  for (const [name, raw] of Object.entries(fields)) {
    const prop = props[name];
    const types: string[] = prop ? (Array.isArray(prop.type) ? prop.type : prop.type ? [prop.type] : []) : [];
    if (types.includes('array')) {
      out[name] = Array.isArray(raw) ? raw : [raw];
      continue;
    }
    const value = Array.isArray(raw) ? raw[raw.length - 1]! : raw;
    if ((types.includes('number') || types.includes('integer')) && NUMBER.test(value)) out[name] = Number(value);
    else if (types.includes('boolean') && (value === 'true' || value === 'false')) out[name] = value === 'true';
    else out[name] = value;
  }
  return out;
}

/** Checks form fields against a request schema: `early` skips required fields (more may come). */
export class FormSchema {
  private readonly validate: ValidateFunction;

  constructor(file: string) {
    this.validate = validatorFor(file);
  }

  typed(fields: FormFields): Record<string, unknown> {
    return typedFields(fields, this.validate.schema as { properties?: Record<string, FieldSchema | undefined> });
  }

  check(fields: FormFields, early = false): Record<string, unknown> {
    const typed = this.typed(fields);
    if (!this.validate(typed)) {
      const errors = early ? this.validate.errors!.filter((e) => e.keyword !== 'required') : this.validate.errors;
      const problem = firstProblem(errors);
      if (problem) throw badRequest(`${problem.key || 'body'}: ${problem.message}`, problem.key || 'body');
    }
    return typed;
  }
}
