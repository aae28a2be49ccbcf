export class QueryError extends Error {
    path;
    constructor(path, message) {
        super(`${path}: ${message}`);
        this.path = path;
    }
}
const FIELD_OPERATORS = new Set(['$eq', '$ne', '$in', '$nin', '$gt', '$gte', '$lt', '$lte', '$regex']);
export function isPlainObject(value) {
    return value !== null && typeof value === 'object' && !Array.isArray(value);
}
/** The value at a dotted path below `root` (segments after the first). */
export function valueAt(root, segments, from = 1) {
    let value = root;
    for (let i = from; i < segments.length; i++) {
        if (!isPlainObject(value))
            return undefined;
        value = value[segments[i]];
    }
    return value;
}
function equals(a, b) {
    if (a === b)
        return true;
    if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object')
        return false;
    return JSON.stringify(a) === JSON.stringify(b);
}
function comparable(a, b) {
    return (typeof a === 'number' && typeof b === 'number') || (typeof a === 'string' && typeof b === 'string');
}
function compileOperator(op, operand, path) {
    switch (op) {
        case '$eq':
            return (v) => equals(v, operand);
        case '$ne':
            return (v) => !equals(v, operand);
        case '$in':
        case '$nin': {
            if (!Array.isArray(operand))
                throw new QueryError(path, `${op} takes an array`);
            const list = operand;
            const inList = (v) => (Array.isArray(v) ? v.some((x) => list.some((y) => equals(x, y))) : list.some((y) => equals(v, y)));
            return op === '$in' ? inList : (v) => !inList(v);
        }
        case '$gt':
        case '$gte':
        case '$lt':
        case '$lte': {
            if (typeof operand !== 'number' && typeof operand !== 'string')
                throw new QueryError(path, `${op} takes a number or a string`);
            const cmp = op === '$gt'
                ? (a) => a > operand
                : op === '$gte'
                    ? (a) => a >= operand
                    : op === '$lt'
                        ? (a) => a < operand
                        : (a) => a <= operand;
            return (v) => comparable(v, operand) && cmp(v);
        }
        case '$regex': {
            if (typeof operand !== 'string')
                throw new QueryError(path, '$regex takes a pattern string');
            let re;
            try {
                re = new RegExp(operand);
            }
            catch (err) {
                throw new QueryError(path, `$regex is not a valid pattern: ${err.message}`);
            }
            return (v) => typeof v === 'string' && re.test(v);
        }
        default:
            throw new QueryError(path, `unknown operator ${op} (known: ${[...FIELD_OPERATORS].join(' ')} $and $or)`);
    }
}
function compileField(read, spec, path) {
    let tests;
    if (isPlainObject(spec) && Object.keys(spec).length > 0 && Object.keys(spec).every((k) => k.startsWith('$'))) {
        tests = Object.entries(spec).map(([op, operand]) => compileOperator(op, operand, `${path}.${op}`));
    }
    else {
        tests = [(v) => equals(v, spec)];
    }
    if (tests.length === 1) {
        const test = tests[0];
        return (input) => test(read(input));
    }
    return (input) => {
        const value = read(input);
        for (const test of tests)
            if (!test(value))
                return false;
        return true;
    };
}
/**
 * Compiles one query object; `path` names it in error messages (e.g. strategy.conditions[0].query),
 * `fields` gives the reader of each field name, `fieldHelp` says which names are known.
 */
export function compileQueryWith(query, path, fields, fieldHelp) {
    if (!isPlainObject(query))
        throw new QueryError(path, 'must be an object');
    const parts = [];
    for (const [key, spec] of Object.entries(query)) {
        if (key === '$and' || key === '$or') {
            if (!Array.isArray(spec) || spec.length === 0)
                throw new QueryError(`${path}.${key}`, 'takes a non-empty array of queries');
            const subs = spec.map((q, i) => compileQueryWith(q, `${path}.${key}[${i}]`, fields, fieldHelp));
            parts.push(key === '$and' ? (input) => subs.every((p) => p(input)) : (input) => subs.some((p) => p(input)));
        }
        else if (key.startsWith('$')) {
            throw new QueryError(`${path}.${key}`, 'only $and and $or may stand at the top of a query');
        }
        else {
            const read = fields(key);
            if (!read)
                throw new QueryError(`${path}.${key}`, fieldHelp);
            parts.push(compileField(read, spec, `${path}.${key}`));
        }
    }
    if (parts.length === 1)
        return parts[0];
    return (input) => {
        for (const p of parts)
            if (!p(input))
                return false;
        return true;
    };
}
//# sourceMappingURL=query.js.map