import { compileQueryWith, QueryError, valueAt, type PatternOrigin, type Predicate as QueryPredicate } from '../../../kernel/engine/query.js';

export { QueryError, type PatternOrigin };

/**
 * Conditional routing's queries (the routing config's `strategy.conditions[].query`): fields
 * `metadata.<key>` (the x-gateway-metadata header) and `params.<key>` (the request body), dotted
 * paths for nested values, in the query language of kernel/engine/query.ts.
 */
export interface ConditionInput {
  metadata: Record<string, unknown>;
  params: Record<string, unknown>;
}

export type Predicate = QueryPredicate<ConditionInput>;

function field(name: string): ((input: ConditionInput) => unknown) | undefined {
  const segments = name.split('.');
  if ((segments[0] !== 'metadata' && segments[0] !== 'params') || segments.length < 2 || segments.some((s) => s === '')) return undefined;
  return segments[0] === 'metadata' ? (input) => valueAt(input.metadata, segments) : (input) => valueAt(input.params, segments);
}

/**
 * Compiles one query object; `path` names it in error messages (e.g. strategy.conditions[0].query).
 * `origin` caller (x-gateway-config JSON): `$regex` on RE2; operator (configs.<name>): RegExp, shape-checked.
 */
export function compileQuery(query: unknown, path: string, origin: PatternOrigin): Predicate {
  return compileQueryWith(query, path, field, 'a field must be metadata.<key> or params.<key>', origin);
}
