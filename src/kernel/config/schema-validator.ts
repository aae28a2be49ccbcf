import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { SCHEMA_DIR } from '../paths.js';
import { SCHEMA_AJV_OPTIONS } from './ajv-options.js';
import { loadPrecompiled, schemaTextsHash } from './precompiled-validators.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/**
 * Every schema in schema/, validated by functions compiled once: ahead by the build where its
 * precompiled validators match the schema/ texts (start-up then compiles no schema), otherwise
 * by one Ajv instance at first use. `validatorFor` returns the function for a schema file name
 * (e.g. "gateway.schema.json", "requests/chat-completions.schema.json"). Nothing is coerced:
 * "0.5" is not a number.
 */
interface SchemaFile {
  rel: string;
  text: string;
  schema: Record<string, unknown> & { $id?: string };
}

function loadSchemas(dir: string, out: SchemaFile[] = []): SchemaFile[] {
  for (const name of readdirSync(dir).sort()) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) loadSchemas(full, out);
    else if (name.endsWith('.schema.json')) {
      const text = readFileSync(full, 'utf8');
      out.push({ rel: relative(SCHEMA_DIR, full).split('\\').join('/'), text, schema: JSON.parse(text) });
    }
  }
  return out;
}

let files: Map<string, SchemaFile> | undefined;
let precompiled: ReturnType<typeof loadPrecompiled> | null = null;
let shared: Ajv | undefined;

function schemaFiles(): Map<string, SchemaFile> {
  if (!files) files = new Map(loadSchemas(SCHEMA_DIR).map((f) => [f.rel, f]));
  return files;
}

/** The build's validators, when made from these schema/ texts. */
function ahead(): ReturnType<typeof loadPrecompiled> {
  if (precompiled === null) precompiled = loadPrecompiled(schemaTextsHash([...schemaFiles().values()]));
  return precompiled;
}

/**
 * A schema of schema/ as a plain object, by its file name (e.g. "stages/retry.schema.json"):
 * the config schema of a built-in extension, handed to its registry.
 */
export function schemaDocument(file: string): Record<string, unknown> {
  const doc = schemaFiles().get(file)?.schema;
  if (!doc) throw new Error(`no schema ${file} in schema/`);
  return doc;
}

/** The validator the build compiled for a built-in extension's config schema (defaults filled in), if any. */
export function precompiledExtensionValidator(schema: Record<string, unknown>): ValidateFunction | undefined {
  const id = schema.$id;
  if (typeof id !== 'string') return undefined;
  // Only schema/'s own documents: a plugin's schema is compiled at run time, whatever its $id.
  for (const file of schemaFiles().values()) {
    if (file.schema !== schema) continue;
    const fn = ahead()?.extensions[id];
    return fn && withSchema(fn, schema);
  }
  return undefined;
}

export function schemaAjv(): Ajv {
  if (shared) return shared;
  const ajv = new Ajv({ ...SCHEMA_AJV_OPTIONS });
  addFormats(ajv);
  for (const { schema } of schemaFiles().values()) ajv.addSchema(schema);
  shared = ajv;
  return ajv;
}

export function validatorFor(file: string): ValidateFunction {
  const doc = schemaFiles().get(file)?.schema;
  if (!doc?.$id) throw new Error(`no schema ${file} in schema/`);
  const fn = ahead()?.schemas[doc.$id];
  return fn ? withSchema(fn, doc) : schemaAjv().getSchema(doc.$id)!;
}

/** A precompiled function carries its schema as a run-time compiled one does (`validate.schema`). */
function withSchema(fn: ValidateFunction, doc: Record<string, unknown>): ValidateFunction {
  if (fn.schema === undefined) Object.defineProperty(fn, 'schema', { value: doc, enumerable: true });
  return fn;
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

export interface Problem {
  /** The key path ("messages[0].role"); empty for the whole document. */
  key: string;
  message: string;
}

const isSummary = (e: ErrorObject) => e.keyword === 'oneOf' || e.keyword === 'anyOf';
const depth = (e: ErrorObject) => (e.instancePath ? e.instancePath.split('/').length - 1 : 0);
const under = (e: ErrorObject, summary: ErrorObject) => e !== summary && e.schemaPath.startsWith(`${summary.schemaPath}/`);

function listWords(words: string[]): string {
  return words.length <= 1 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} or ${words.at(-1)}`;
}

/**
 * A failed oneOf/anyOf as one problem: the most telling error of its branches (the deepest,
 * a broken bound before a wrong type), or the list of accepted types when every branch is
 * only the wrong type.
 */
function resolveSummary(summary: ErrorObject, errors: ErrorObject[], prefix: string): Problem {
  const key = instancePathToKey(summary.instancePath, prefix);
  const branch = errors.filter((e) => under(e, summary));
  if (!branch.length) return { key, message: 'matches more than one of its allowed forms' };
  const own = depth(summary);
  if (branch.every((e) => e.keyword === 'type' && depth(e) === own)) {
    const types = [...new Set(branch.flatMap((e) => String((e.params as { type: string }).type).split(',')))];
    return { key, message: `must be ${listWords(types)}` };
  }
  if (branch.every((e) => e.keyword === 'required' && depth(e) === own)) {
    const missing = branch.map((e) => String((e.params as { missingProperty: string }).missingProperty));
    return { key, message: `needs ${listWords([...new Set(missing)])}` };
  }
  const deepest = Math.max(...branch.map(depth));
  const atDeepest = branch.filter((e) => depth(e) === deepest);
  const best = atDeepest.find((e) => e.keyword !== 'type' && !isSummary(e)) ?? atDeepest.find(isSummary) ?? atDeepest[0]!;
  // A type error inside a nested oneOf is better told by that oneOf.
  const nested = isSummary(best) ? best : branch.find((e) => isSummary(e) && under(best, e));
  if (nested) return resolveSummary(nested, errors, prefix);
  return describeError(best, prefix);
}

/** One problem per failed rule, each naming its key path; oneOf/anyOf branches folded into one. */
export function describeProblems(errors: ErrorObject[] | null | undefined, prefix = ''): Problem[] {
  if (!errors?.length) return [];
  const summaries = errors.filter(isSummary);
  const out: Problem[] = [];
  const seen = new Set<string>();
  for (const err of errors) {
    if (summaries.some((s) => under(err, s))) continue;
    // if/then/else: the failing branch's own errors say it better than "must match else schema".
    if (err.keyword === 'if') {
      const branch = `${err.schemaPath.slice(0, -'/if'.length)}/${(err.params as { failingKeyword: string }).failingKeyword}/`;
      if (errors.some((e) => e.schemaPath.startsWith(branch))) continue;
    }
    const problem = isSummary(err) ? resolveSummary(err, errors, prefix) : describeError(err, prefix);
    const line = `${problem.key}: ${problem.message}`;
    if (seen.has(line)) continue;
    seen.add(line);
    out.push(problem);
  }
  return out;
}

/** The first problem (request validation answers one at a time). */
export function firstProblem(errors: ErrorObject[] | null | undefined, prefix = ''): Problem | undefined {
  return describeProblems(errors, prefix)[0];
}

/** One readable line per problem, each naming the key path: `auth.type: must be one of ...`. */
export function describeErrors(errors: ErrorObject[] | null | undefined, prefix = ''): string[] {
  return describeProblems(errors, prefix).map((p) => `${p.key || '(root)'}: ${p.message}`);
}

export function describeError(err: ErrorObject, prefix = ''): Problem {
  let key = instancePathToKey(err.instancePath, prefix);
  const p = err.params as Record<string, unknown>;
  const child = (name: string) => (key ? `${key}.${name}` : name);
  let message: string;
  switch (err.keyword) {
    case 'required':
      key = child(p.missingProperty as string);
      message = 'is required';
      break;
    case 'additionalProperties':
      key = child(p.additionalProperty as string);
      message = 'is not a known key';
      break;
    case 'propertyNames':
      key = child(p.propertyName as string);
      message = 'is not an allowed name';
      break;
    case 'enum':
      message = `must be one of ${(p.allowedValues as unknown[]).map(String).join(', ')}`;
      break;
    case 'const':
      message = `must be ${JSON.stringify(p.allowedValue)}`;
      break;
    case 'type':
      message = `must be ${listWords(String(p.type).split(','))}`;
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
      message = `must have at most ${p.limit} item${p.limit === 1 ? '' : 's'}`;
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
    case 'maxProperties':
    case 'minProperties':
      message = err.message ?? 'has the wrong number of keys';
      break;
    case 'pattern':
      message = `must match the pattern ${p.pattern}`;
      break;
    case 'format':
      message = `must be a valid ${p.format}`;
      break;
    case 'uniqueItems':
      message = 'must not repeat items';
      break;
    default:
      message = err.message ?? 'is invalid';
  }
  return { key, message };
}
