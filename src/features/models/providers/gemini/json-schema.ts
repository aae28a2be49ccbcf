/**
 * JSON Schema (as OpenAI tools and response formats carry it) -> the OpenAPI 3.0 subset the
 * Gemini and Vertex AI APIs accept in function declarations and responseSchema:
 * - `$ref` into `definitions` / `$defs` is inlined (a reference cycle becomes a plain object);
 * - type unions with "null" become `nullable: true`; other unions become `anyOf`;
 * - `oneOf` is read as `anyOf`; `allOf` is merged; `const` becomes a one-value enum;
 * - fields Gemini rejects (`$schema`, `additionalProperties`, `default`, `examples`, ...) are
 *   dropped, and so are `format` values it does not know;
 * - `enum` is kept for strings only (Gemini's enums are strings).
 */
import { arrayOf, objectOf } from '../../../../contract/json.js';

type Json = Record<string, unknown>;

/** Fields copied as they are (after recursion where they hold schemas). */
const KEPT = ['title', 'description', 'minItems', 'maxItems', 'minimum', 'maximum', 'propertyOrdering'] as const;

/** The `format` values Gemini accepts, per type. */
const FORMATS: Record<string, ReadonlySet<string>> = {
  string: new Set(['enum', 'date-time']),
  number: new Set(['float', 'double']),
  integer: new Set(['int32', 'int64']),
};

const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'array', 'object']);
const MAX_DEPTH = 32;

interface Walk {
  root: Json;
  /** $refs being inlined on the current path (cycle guard). */
  active: Set<string>;
  depth: number;
}

/** Converts one JSON Schema; returns undefined for an empty (`{}` / true) schema. */
export function toGeminiSchema(schema: unknown): Json | undefined {
  if (!isObject(schema)) return undefined;
  return convert(schema, { root: schema, active: new Set(), depth: 0 });
}

function convert(input: Json, walk: Walk): Json | undefined {
  if (walk.depth > MAX_DEPTH) return { type: 'object' };
  let schema = input;
  if (typeof schema.$ref === 'string') {
    const ref = schema.$ref;
    if (walk.active.has(ref)) return withDescription({ type: 'object' }, schema.description);
    const target = resolveRef(walk.root, ref);
    if (!target) return withDescription({ type: 'object' }, schema.description);
    const { $ref: _ref, ...siblings } = schema;
    const inner = convert(target, { ...walk, active: new Set([...walk.active, ref]), depth: walk.depth + 1 });
    const local = convert(siblings, { ...walk, depth: walk.depth + 1 });
    return merge(inner ?? {}, local ?? {});
  }
  if (Array.isArray(schema.allOf) && schema.allOf.length > 0) {
    const { allOf, ...rest } = schema;
    let merged: Json = convert(rest, { ...walk, depth: walk.depth + 1 }) ?? {};
    for (const part of allOf) {
      if (isObject(part)) merged = merge(merged, convert(part, { ...walk, depth: walk.depth + 1 }) ?? {});
    }
    return Object.keys(merged).length > 0 ? merged : undefined;
  }
  const union = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : undefined;
  if (union) {
    const { anyOf: _a, oneOf: _o, ...rest } = schema;
    schema = rest;
    const branches = union.filter(isObject);
    const nonNull = branches.filter((b: Json) => b.type !== 'null');
    const nullable = nonNull.length < branches.length;
    const converted = nonNull.map((b: Json) => convert(b, { ...walk, depth: walk.depth + 1 }) ?? {});
    const own = convertPlain(schema, walk);
    if (converted.length === 1) {
      const out = merge(converted[0]!, own);
      if (nullable) out.nullable = true;
      return out;
    }
    const out: Json = { ...own };
    if (converted.length > 1) out.anyOf = converted;
    if (nullable) out.nullable = true;
    return Object.keys(out).length > 0 ? out : undefined;
  }
  const out = convertPlain(schema, walk);
  return Object.keys(out).length > 0 ? out : undefined;
}

/** A schema without $ref / allOf / anyOf / oneOf at its top. */
function convertPlain(schema: Json, walk: Walk): Json {
  const out: Json = {};
  let type = schema.type;
  if (Array.isArray(type)) {
    const types = type.filter((t: unknown) => typeof t === 'string' && t !== 'null');
    if (types.length < type.length) out.nullable = true;
    if (types.length === 1) type = types[0];
    else if (types.length > 1) {
      out.anyOf = types.map((t: string) => convertPlain({ ...schema, type: t }, walk));
      return out;
    } else type = undefined;
  }
  if (type === 'null') {
    out.nullable = true;
    type = undefined;
  }
  if (typeof type === 'string' && TYPES.has(type)) out.type = type;
  for (const key of KEPT) if (schema[key] !== undefined) out[key] = schema[key];
  if (schema.nullable === true) out.nullable = true;
  if (typeof schema.format === 'string' && typeof out.type === 'string' && FORMATS[out.type]?.has(schema.format)) out.format = schema.format;
  const values = schema.const !== undefined ? [schema.const] : schema.enum;
  if (Array.isArray(values)) {
    const strings = values.filter((v: unknown) => typeof v === 'string');
    if (strings.length > 0 && strings.length === values.filter((v: unknown) => v !== null).length) {
      out.enum = strings;
      out.type ??= 'string';
      if (values.includes(null)) out.nullable = true;
    }
  }
  if (isObject(schema.properties)) {
    const properties: Json = {};
    for (const [name, sub] of Object.entries(schema.properties)) {
      properties[name] = (isObject(sub) ? convert(sub, { ...walk, depth: walk.depth + 1 }) : undefined) ?? {};
    }
    out.type ??= 'object';
    if (Object.keys(properties).length > 0) out.properties = properties;
    if (Array.isArray(schema.required)) {
      const required = schema.required.filter((r: unknown) => typeof r === 'string' && r in properties);
      if (required.length > 0) out.required = required;
    }
  }
  if (schema.items !== undefined) {
    const item = Array.isArray(schema.items) ? schema.items[0] : schema.items;
    out.type ??= 'array';
    out.items = (isObject(item) ? convert(item, { ...walk, depth: walk.depth + 1 }) : undefined) ?? { type: 'string' };
  } else if (out.type === 'array') {
    out.items = { type: 'string' };
  }
  return out;
}

/** Shallow merge of two converted schemas (properties and required are united). */
function merge(a: Json, b: Json): Json {
  const out: Json = { ...a, ...b };
  if (a.properties || b.properties) out.properties = { ...objectOf(a.properties), ...objectOf(b.properties) };
  if (a.required || b.required) out.required = [...new Set([...arrayOf(a.required), ...arrayOf(b.required)])];
  return out;
}

function resolveRef(root: Json, ref: string): Json | undefined {
  if (!ref.startsWith('#')) return undefined;
  if (ref === '#') return root;
  let node: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isObject(node) || !(key in node)) return undefined;
    node = node[key];
  }
  return isObject(node) ? node : undefined;
}

function withDescription(schema: Json, description: unknown): Json {
  return typeof description === 'string' ? { ...schema, description } : schema;
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
