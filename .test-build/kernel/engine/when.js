import { compileQueryWith, valueAt } from './query.js';
import { BODY, requestMetadata } from './request-body.js';
const FIELD_HELP = 'a field must be route, method, path, params.<key>, metadata.<key>, headers.<name> or identity.<field>';
function reader(field, usesBody) {
    if (field === 'route')
        return (ctx) => ctx.route;
    if (field === 'method')
        return (ctx) => ctx.method;
    if (field === 'path')
        return (ctx) => ctx.path;
    const segments = field.split('.');
    if (segments.length < 2 || segments.some((s) => s === ''))
        return undefined;
    switch (segments[0]) {
        case 'params':
            usesBody.value = true;
            return (ctx) => valueAt(ctx.get(BODY), segments);
        case 'metadata':
            return (ctx) => {
                try {
                    return valueAt(requestMetadata(ctx), segments);
                }
                catch {
                    // A malformed header matches nothing here; routing answers it with its 400.
                    return undefined;
                }
            };
        case 'headers': {
            if (segments.length !== 2)
                return undefined;
            const name = segments[1].toLowerCase();
            return (ctx) => {
                const v = ctx.headers[name];
                return Array.isArray(v) ? v.join(', ') : v;
            };
        }
        case 'identity':
            return (ctx) => valueAt(ctx.identity ?? undefined, segments);
        default:
            return undefined;
    }
}
/**
 * Compiles a stage's `when:` query (the routing config's operators) over the request: `route`
 * (the matched pattern), `method`, `path`, `params.<key>` (the JSON body), `metadata.<key>`
 * (x-gateway-metadata), `headers.<name>`, `identity.<field>`. Throws QueryError naming the key.
 */
export function compileWhen(query, path) {
    const usesBody = { value: false };
    const test = compileQueryWith(query, path, (field) => reader(field, usesBody), FIELD_HELP);
    return { test, usesBody: usesBody.value };
}
//# sourceMappingURL=when.js.map