/**
 * The query language of conditional routing, compiled once per config: fields
 * `metadata.<key>` (the x-gateway-metadata header) and `params.<key>` (the request body),
 * dotted paths for nested values, the operators $eq $ne $in $nin $gt $gte $lt $lte $regex
 * on a field, and $and / $or over sub-queries. A field given a plain value means $eq.
 * Several fields (or operators) in one object must all hold.
 */
export interface ConditionInput {
  metadata: Record<string, unknown>;
  params: Record<string, unknown>;
}

export type Predicate = (input: ConditionInput) => boolean;

export class QueryError extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(`${path}: ${message}`);
  }
}

const FIELD_OPERATORS = new Set(['$eq', '$ne', '$in', '$nin', '$gt', '$gte', '$lt', '$lte', '$regex']);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function lookup(input: ConditionInput, segments: string[]): unknown {
  let value: unknown = segments[0] === 'metadata' ? input.metadata : input.params;
  for (let i = 1; i < segments.length; i++) {
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

function compileOperator(op: string, operand: unknown, path: string): (value: unknown) => boolean {
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
      let re: RegExp;
      try {
        re = new RegExp(operand);
      } catch (err) {
        throw new QueryError(path, `$regex is not a valid pattern: ${(err as Error).message}`);
      }
      return (v) => typeof v === 'string' && re.test(v);
    }
    default:
      throw new QueryError(path, `unknown operator ${op} (known: ${[...FIELD_OPERATORS].join(' ')} $and $or)`);
  }
}

function compileField(field: string, spec: unknown, path: string): Predicate {
  const segments = field.split('.');
  if ((segments[0] !== 'metadata' && segments[0] !== 'params') || segments.length < 2 || segments.some((s) => s === '')) {
    throw new QueryError(path, 'a field must be metadata.<key> or params.<key>');
  }
  let tests: Array<(value: unknown) => boolean>;
  if (isPlainObject(spec) && Object.keys(spec).length > 0 && Object.keys(spec).every((k) => k.startsWith('$'))) {
    tests = Object.entries(spec).map(([op, operand]) => compileOperator(op, operand, `${path}.${op}`));
  } else {
    tests = [(v) => equals(v, spec)];
  }
  return (input) => {
    const value = lookup(input, segments);
    for (const test of tests) if (!test(value)) return false;
    return true;
  };
}

/** Compiles one query object; `path` names it in error messages (e.g. strategy.conditions[0].query). */
export function compileQuery(query: unknown, path: string): Predicate {
  if (!isPlainObject(query)) throw new QueryError(path, 'must be an object');
  const parts: Predicate[] = [];
  for (const [key, spec] of Object.entries(query)) {
    if (key === '$and' || key === '$or') {
      if (!Array.isArray(spec) || spec.length === 0) throw new QueryError(`${path}.${key}`, 'takes a non-empty array of queries');
      const subs = spec.map((q, i) => compileQuery(q, `${path}.${key}[${i}]`));
      parts.push(key === '$and' ? (input) => subs.every((p) => p(input)) : (input) => subs.some((p) => p(input)));
    } else if (key.startsWith('$')) {
      throw new QueryError(`${path}.${key}`, 'only $and and $or may stand at the top of a query');
    } else {
      parts.push(compileField(key, spec, `${path}.${key}`));
    }
  }
  return (input) => parts.every((p) => p(input));
}
