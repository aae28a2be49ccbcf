import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { SCHEMA_DIR } from '../paths.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/**
 * One Ajv instance holding every schema in schema/, compiled once. `validatorFor` returns the
 * compiled function for a schema file name (e.g. "gateway.schema.json",
 * "requests/chat-completions.schema.json").
 */
function loadSchemas(dir: string, out: Array<{ rel: string; schema: any }> = []): typeof out {
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) loadSchemas(full, out);
    else if (name.endsWith('.schema.json')) {
      out.push({ rel: relative(SCHEMA_DIR, full).split('\\').join('/'), schema: JSON.parse(readFileSync(full, 'utf8')) });
    }
  }
  return out;
}

let shared: Ajv | undefined;
const byFile = new Map<string, string>();

export function schemaAjv(): Ajv {
  if (shared) return shared;
  const ajv = new Ajv({ allErrors: true, strict: false, allowUnionTypes: true, useDefaults: false });
  addFormats(ajv);
  for (const { rel, schema } of loadSchemas(SCHEMA_DIR)) {
    ajv.addSchema(schema);
    byFile.set(rel, schema.$id);
  }
  shared = ajv;
  return ajv;
}

export function validatorFor(file: string): ValidateFunction {
  const ajv = schemaAjv();
  const id = byFile.get(file);
  if (!id) throw new Error(`no schema ${file} in schema/`);
  return ajv.getSchema(id)!;
}

/** `/auth/type` -> `auth.type`; `/targets/0/provider` -> `targets[0].provider`. */
export function instancePathToKey(instancePath: string, prefix = ''): string {
  let out = prefix;
  for (const raw of instancePath.split('/').slice(1)) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (/^\d+$/.test(part)) out += `[${part}]`;
    else out += out ? `.${part}` : part;
  }
  return out;
}

/** One readable line per problem, each naming the key path. */
export function describeErrors(errors: ErrorObject[] | null | undefined, prefix = ''): string[] {
  if (!errors?.length) return [];
  const lines: string[] = [];
  const seen = new Set<string>();
  // oneOf/anyOf produce a summary plus one error per branch: keep the summary only.
  const branchPaths = new Set(errors.filter((e) => e.keyword === 'oneOf' || e.keyword === 'anyOf').map((e) => e.instancePath));
  for (const err of errors) {
    if (err.keyword !== 'oneOf' && err.keyword !== 'anyOf' && branchPaths.has(err.instancePath) && err.schemaPath.includes('Of/')) continue;
    const { key, message } = describeError(err, prefix);
    const line = `${key || '(root)'}: ${message}`;
    if (!seen.has(line)) {
      seen.add(line);
      lines.push(line);
    }
  }
  return lines;
}

export function describeError(err: ErrorObject, prefix = ''): { key: string; message: string } {
  let key = instancePathToKey(err.instancePath, prefix);
  const p = err.params as Record<string, any>;
  let message: string;
  switch (err.keyword) {
    case 'required':
      key = key ? `${key}.${p.missingProperty}` : `${prefix ? prefix + '.' : ''}${p.missingProperty}`;
      message = 'is required';
      break;
    case 'additionalProperties':
      key = key ? `${key}.${p.additionalProperty}` : `${prefix ? prefix + '.' : ''}${p.additionalProperty}`;
      message = 'is not a known key';
      break;
    case 'enum':
      message = `must be one of ${(p.allowedValues as unknown[]).join(', ')}`;
      break;
    case 'type':
      message = `must be ${String(p.type).replace(',', ' or ')}`;
      break;
    case 'oneOf':
    case 'anyOf':
      message = 'has the wrong shape or type';
      break;
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      message = `must be ${p.comparison} ${p.limit}`;
      break;
    case 'maxItems':
      message = `must have at most ${p.limit} items`;
      break;
    case 'minItems':
      message = `must have at least ${p.limit} item${p.limit === 1 ? '' : 's'}`;
      break;
    case 'maxLength':
      message = `must be at most ${p.limit} characters`;
      break;
    case 'minLength':
      message = p.limit === 1 ? 'must not be empty' : `must be at least ${p.limit} characters`;
      break;
    default:
      message = err.message ?? 'is invalid';
  }
  return { key, message };
}
