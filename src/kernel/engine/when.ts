import type { GatewayContext } from './context.js';
import { compileQueryWith, valueAt, type Predicate } from './query.js';
import { BODY, requestMetadata } from './request-body.js';

const FIELD_HELP = 'a field must be route, method, path, params.<key>, metadata.<key>, headers.<name> or identity.<field>';

function reader(field: string, usesBody: { value: boolean }): ((ctx: GatewayContext) => unknown) | undefined {
  if (field === 'route') return (ctx) => ctx.route;
  if (field === 'method') return (ctx) => ctx.method;
  if (field === 'path') return (ctx) => ctx.path;
  const segments = field.split('.');
  if (segments.length < 2 || segments.some((s) => s === '')) return undefined;
  switch (segments[0]) {
    case 'params':
      usesBody.value = true;
      return (ctx) => valueAt(ctx.get(BODY), segments);
    case 'metadata':
      return (ctx) => {
        try {
          return valueAt(requestMetadata(ctx), segments);
        } catch {
          // A malformed header matches nothing here; routing answers it with its 400.
          return undefined;
        }
      };
    case 'headers': {
      if (segments.length !== 2) return undefined;
      const name = segments[1]!.toLowerCase();
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

export interface CompiledWhen {
  test: Predicate<GatewayContext>;
  /** The query reads params.* (the JSON body): the body must be read before it is tested. */
  usesBody: boolean;
}

/**
 * Compiles a stage's `when:` query (the routing config's operators) over the request: `route`
 * (the matched pattern), `method`, `path`, `params.<key>` (the JSON body), `metadata.<key>`
 * (x-gateway-metadata), `headers.<name>`, `identity.<field>`. Throws QueryError naming the key.
 * `when:` is the operator's (pipeline files): its `$regex` runs on RegExp after the shape check.
 */
export function compileWhen(query: unknown, path: string): CompiledWhen {
  const usesBody = { value: false };
  const test = compileQueryWith<GatewayContext>(query, path, (field) => reader(field, usesBody), FIELD_HELP, 'operator');
  return { test, usesBody: usesBody.value };
}
