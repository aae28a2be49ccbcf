/**
 * The query language of the routing config's conditions and of `when:` on pipeline stages,
 * compiled once: field names (what a field means is up to the caller, through `fieldReader`),
 * the operators $eq $ne $in $nin $gt $gte $lt $lte $regex on a field, and $and / $or over
 * sub-queries. A field given a plain value means $eq; several fields (or operators) in one
 * object must all hold.
 *
 * `$regex` patterns: a caller's (sent with a request) run on the linear-time engine (RE2; no
 * backreferences or lookaround, refused otherwise); an operator's (the config file) run on
 * RegExp once checked for catastrophic-backtracking shapes. Either way compiled here, once.
 */
import { compileCheckedRegExp } from '../text/catastrophic-regex.js';
import { compileLinearRegex } from '../text/linear-regex.js';

/** Who wrote the query: decides the regular-expression engine of `$regex`. */
export type PatternOrigin = 'caller' | 'operator';

export type Predicate<I> = (input: I) => boolean;

/** Reads a field's value from the input; undefined when the field name is not one the caller knows. */
export type FieldReaders<I> = (field: string) => ((input: I) => unknown) | undefined;

export class QueryError extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(`${path}: ${message}`);
  }
}

const FIELD_OPERATORS = new Set(['$eq', '$ne', '$in', '$nin', '$gt', '$gte', '$lt', '$lte', '$regex']);

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The value at a dotted path below `root` (segments after the first). */
export function valueAt(root: unknown, segments: readonly string[], from = 1): unknown {
  let value = root;
  for (let i = from; i < segments.length; i++) {
    if (!isPlainObject(value)) return undefined;
    value = value[segments[i]!];
  }
  return value;
}

function equals(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  return JSON.stringify(a) === JSON.stringify(b);
}

function comparable(a: unknown, b: unknown): a is number | string {
  return (typeof a === 'number' && typeof b === 'number') || (typeof a === 'string' && typeof b === 'string');
}

function compilePattern(source: string, origin: PatternOrigin, path: string): (value: string) => boolean {
  try {
    if (origin === 'caller') {
      const re = compileLinearRegex(source);
      return (v) => re.test(v);
    }
    const re = compileCheckedRegExp(source);
    return (v) => re.test(v);
  } catch (err) {
    throw new QueryError(path, (err as Error).message);
  }
}

function compileOperator(op: string, operand: unknown, path: string, origin: PatternOrigin): (value: unknown) => boolean {
  switch (op) {
    case '$eq':
      return (v) => equals(v, operand);
    case '$ne':
      return (v) => !equals(v, operand);
    case '$in':
    case '$nin': {
      if (!Array.isArray(operand)) throw new QueryError(path, `${op} takes an array`);
      const list = operand;
      const inList = (v: unknown) => (Array.isArray(v) ? v.some((x) => list.some((y) => equals(x, y))) : list.some((y) => equals(v, y)));
      return op === '$in' ? inList : (v) => !inList(v);
    }
    case '$gt':
    case '$gte':
    case '$lt':
    case '$lte': {
      if (typeof operand !== 'number' && typeof operand !== 'string') throw new QueryError(path, `${op} takes a number or a string`);
      const cmp =
        op === '$gt'
          ? (a: number | string) => a > operand
          : op === '$gte'
            ? (a: number | string) => a >= operand
            : op === '$lt'
              ? (a: number | string) => a < operand
              : (a: number | string) => a <= operand;
      return (v) => comparable(v, operand) && cmp(v);
    }
    case '$regex': {
      if (typeof operand !== 'string') throw new QueryError(path, '$regex takes a pattern string');
      const test = compilePattern(operand, origin, path);
      return (v) => typeof v === 'string' && test(v);
    }
    default:
      throw new QueryError(path, `unknown operator ${op} (known: ${[...FIELD_OPERATORS].join(' ')} $and $or)`);
  }
}

function compileField<I>(read: (input: I) => unknown, spec: unknown, path: string, origin: PatternOrigin): Predicate<I> {
  let tests: Array<(value: unknown) => boolean>;
  if (isPlainObject(spec) && Object.keys(spec).length > 0 && Object.keys(spec).every((k) => k.startsWith('$'))) {
    tests = Object.entries(spec).map(([op, operand]) => compileOperator(op, operand, `${path}.${op}`, origin));
  } else {
    tests = [(v) => equals(v, spec)];
  }
  if (tests.length === 1) {
    const test = tests[0]!;
    return (input) => test(read(input));
  }
  return (input) => {
    const value = read(input);
    for (const test of tests) if (!test(value)) return false;
    return true;
  };
}

/**
 * Compiles one query object; `path` names it in error messages (e.g. strategy.conditions[0].query),
 * `fields` gives the reader of each field name, `fieldHelp` says which names are known, `origin`
 * who wrote it (the engine of its `$regex` patterns).
 */
export function compileQueryWith<I>(query: unknown, path: string, fields: FieldReaders<I>, fieldHelp: string, origin: PatternOrigin): Predicate<I> {
  if (!isPlainObject(query)) throw new QueryError(path, 'must be an object');
  const parts: Predicate<I>[] = [];
  for (const [key, spec] of Object.entries(query)) {
    if (key === '$and' || key === '$or') {
      if (!Array.isArray(spec) || spec.length === 0) throw new QueryError(`${path}.${key}`, 'takes a non-empty array of queries');
      const subs = spec.map((q, i) => compileQueryWith(q, `${path}.${key}[${i}]`, fields, fieldHelp, origin));
      parts.push(key === '$and' ? (input) => subs.every((p) => p(input)) : (input) => subs.some((p) => p(input)));
    } else if (key.startsWith('$')) {
      throw new QueryError(`${path}.${key}`, 'only $and and $or may stand at the top of a query');
    } else {
      const read = fields(key);
      if (!read) throw new QueryError(`${path}.${key}`, fieldHelp);
      parts.push(compileField(read, spec, `${path}.${key}`, origin));
    }
  }
  if (parts.length === 1) return parts[0]!;
  return (input) => {
    for (const p of parts) if (!p(input)) return false;
    return true;
  };
}
