import type { RouteDef } from '../engine/context.js';

export interface RouteMatch<E extends RouteDef> {
  route: E;
  params?: Record<string, string>;
  /** The parameter whose segment holds a malformed percent-encoding (%zz, a cut-off UTF-8 sequence) or a NUL (%00): the request is a 400. */
  malformed?: string;
}

interface ParamRoute<E> {
  /** Lower-case literals; null where the route has a {param}. */
  segments: Array<string | null>;
  names: Array<string | null>;
  route: E;
}

/**
 * The route table lookup of the HTTP edge: routes without parameters in one Map (method and
 * path), the others matched segment by segment. Paths match without regard to case and with
 * or without one trailing slash; HEAD is served by the GET route. Unknown routes give undefined
 * (the table's catch-all serves them). A parameter that cannot be percent-decoded is named in
 * `malformed` (the edge answers 400), never passed on as it came.
 */
export class Router<E extends RouteDef> {
  private readonly exact = new Map<string, E>();
  private readonly withParams = new Map<string, ParamRoute<E>[]>();

  constructor(routes: readonly E[]) {
    for (const route of routes) {
      if (route.key === '*') continue;
      const parts = route.path.split('/').slice(1);
      if (!parts.some((p) => p.startsWith('{'))) {
        this.exact.set(`${route.method} ${route.path.toLowerCase()}`, route);
        continue;
      }
      let list = this.withParams.get(route.method);
      if (!list) this.withParams.set(route.method, (list = []));
      list.push({
        segments: parts.map((p) => (p.startsWith('{') ? null : p.toLowerCase())),
        names: parts.map((p) => (p.startsWith('{') ? p.slice(1, -1) : null)),
        route,
      });
    }
  }

  match(method: string, rawPath: string): RouteMatch<E> | undefined {
    const m = method === 'HEAD' ? 'GET' : method;
    const path = rawPath.length > 1 && rawPath.endsWith('/') ? rawPath.slice(0, -1) : rawPath;
    const lower = path.toLowerCase();
    const exact = this.exact.get(`${m} ${path}`) ?? (lower === path ? undefined : this.exact.get(`${m} ${lower}`));
    if (exact) return { route: exact };
    const candidates = this.withParams.get(m);
    if (!candidates) return undefined;
    const parts = path.split('/').slice(1);
    // Literal segments compare without regard to case: the lower-case path's, split once.
    const lowerParts = lower === path ? parts : lower.split('/').slice(1);
    for (const candidate of candidates) {
      if (candidate.segments.length !== parts.length) continue;
      let params: Record<string, string> | undefined = {};
      let malformed: string | undefined;
      for (let i = 0; i < parts.length; i++) {
        const literal = candidate.segments[i];
        const part = parts[i]!;
        if (literal === null) {
          if (part === '') {
            params = undefined;
            break;
          }
          let value = part;
          if (part.includes('%')) {
            try {
              value = decodeURIComponent(part);
            } catch {
              malformed ??= candidate.names[i]!;
            }
            // No id, name or tool the gateway keeps holds a NUL (nor can a PostgreSQL text): %00 names nothing.
            if (value.includes('\0')) malformed ??= candidate.names[i]!;
          }
          params[candidate.names[i]!] = value;
        } else if (literal !== lowerParts[i]) {
          params = undefined;
          break;
        }
      }
      if (params) return malformed ? { route: candidate.route, params, malformed } : { route: candidate.route, params };
    }
    return undefined;
  }
}
