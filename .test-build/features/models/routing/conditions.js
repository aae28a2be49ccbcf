import { compileQueryWith, QueryError, valueAt } from '../../../kernel/engine/query.js';
export { QueryError };
function field(name) {
    const segments = name.split('.');
    if ((segments[0] !== 'metadata' && segments[0] !== 'params') || segments.length < 2 || segments.some((s) => s === ''))
        return undefined;
    return segments[0] === 'metadata' ? (input) => valueAt(input.metadata, segments) : (input) => valueAt(input.params, segments);
}
/** Compiles one query object; `path` names it in error messages (e.g. strategy.conditions[0].query). */
export function compileQuery(query, path) {
    return compileQueryWith(query, path, field, 'a field must be metadata.<key> or params.<key>');
}
//# sourceMappingURL=conditions.js.map