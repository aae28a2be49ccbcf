const RANK = { literal: 3, param: 2, rest: 1 };
const METHODS = new Set(['*', 'GET', 'POST', 'DELETE', 'PUT', 'PATCH', 'OPTIONS', 'HEAD']);
function splitPath(path) {
    return path.split('/').slice(1);
}
/** Parses a pattern; returns the problem as a string when it is malformed. */
export function parsePattern(text) {
    const trimmed = text.trim();
    if (trimmed === '*')
        return { text: trimmed, method: '*', segments: [{ kind: 'rest' }], all: true };
    const m = /^(\S+) (\/\S*)$/.exec(trimmed);
    if (!m)
        return 'must be "METHOD /path" or "*"';
    const method = m[1].toUpperCase();
    if (!METHODS.has(method))
        return `unknown method ${m[1]}`;
    const raw = splitPath(m[2]);
    const segments = [];
    for (let i = 0; i < raw.length; i++) {
        const s = raw[i];
        if (s === '*') {
            if (i !== raw.length - 1)
                return '"*" may only end a path';
            segments.push({ kind: 'rest' });
        }
        else if (/^\{[A-Za-z_][A-Za-z0-9_]*\}$/.test(s))
            segments.push({ kind: 'param' });
        else if (s === '' && raw.length > 1)
            return 'has an empty path segment';
        else if (/[{}*]/.test(s))
            return `segment "${s}" must be a name, {param} or *`;
        else
            segments.push({ kind: 'literal', value: s.toLowerCase() });
    }
    const all = method === '*' && segments.length === 1 && segments[0].kind === 'rest';
    return { text: trimmed, method, segments, all };
}
/** Whether `pattern` claims the route table entry `route` (whose path has `{param}` segments). */
export function patternMatches(pattern, route) {
    if (route.key === '*')
        return pattern.all;
    if (pattern.method !== '*' && pattern.method !== route.method)
        return false;
    const path = splitPath(route.path);
    const segs = pattern.segments;
    for (let i = 0; i < segs.length; i++) {
        const seg = segs[i];
        if (seg.kind === 'rest')
            return path.length > i;
        const part = path[i];
        if (part === undefined)
            return false;
        if (seg.kind === 'literal' && (part.startsWith('{') || part.toLowerCase() !== seg.value))
            return false;
    }
    return path.length === segs.length;
}
/**
 * Orders two patterns that claim the same route: segment by segment from the left, a literal
 * beats a `{param}`, which beats a `*`; then a named method beats `*`. Positive when `a` is
 * more specific, 0 for a tie.
 */
export function compareSpecificity(a, b) {
    const n = Math.max(a.segments.length, b.segments.length);
    for (let i = 0; i < n; i++) {
        const ra = a.segments[i] ? RANK[a.segments[i].kind] : 0;
        const rb = b.segments[i] ? RANK[b.segments[i].kind] : 0;
        if (ra !== rb)
            return ra - rb;
    }
    return (a.method === '*' ? 0 : 1) - (b.method === '*' ? 0 : 1);
}
//# sourceMappingURL=route-patterns.js.map