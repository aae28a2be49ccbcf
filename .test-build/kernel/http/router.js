/**
 * The route table lookup of the HTTP edge: routes without parameters in one Map (method and
 * path), the others matched segment by segment. Paths match without regard to case and with
 * or without one trailing slash; HEAD is served by the GET route. Unknown routes give undefined
 * (the table's catch-all serves them). A parameter that cannot be percent-decoded is named in
 * `malformed` (the edge answers 400), never passed on as it came.
 */
export class Router {
    exact = new Map();
    withParams = new Map();
    constructor(routes) {
        for (const route of routes) {
            if (route.key === '*')
                continue;
            const parts = route.path.split('/').slice(1);
            if (!parts.some((p) => p.startsWith('{'))) {
                this.exact.set(`${route.method} ${route.path.toLowerCase()}`, route);
                continue;
            }
            let list = this.withParams.get(route.method);
            if (!list)
                this.withParams.set(route.method, (list = []));
            list.push({
                segments: parts.map((p) => (p.startsWith('{') ? null : p.toLowerCase())),
                names: parts.map((p) => (p.startsWith('{') ? p.slice(1, -1) : null)),
                route,
            });
        }
    }
    match(method, rawPath) {
        const m = method === 'HEAD' ? 'GET' : method;
        const path = rawPath.length > 1 && rawPath.endsWith('/') ? rawPath.slice(0, -1) : rawPath;
        const exact = this.exact.get(`${m} ${path}`) ?? this.exact.get(`${m} ${path.toLowerCase()}`);
        if (exact)
            return { route: exact };
        const candidates = this.withParams.get(m);
        if (!candidates)
            return undefined;
        const parts = path.split('/').slice(1);
        for (const candidate of candidates) {
            if (candidate.segments.length !== parts.length)
                continue;
            let params = {};
            let malformed;
            for (let i = 0; i < parts.length; i++) {
                const literal = candidate.segments[i];
                const part = parts[i];
                if (literal === null) {
                    if (part === '') {
                        params = undefined;
                        break;
                    }
                    let value = part;
                    if (part.includes('%')) {
                        try {
                            value = decodeURIComponent(part);
                        }
                        catch {
                            malformed ??= candidate.names[i];
                        }
                    }
                    params[candidate.names[i]] = value;
                }
                else if (literal !== part.toLowerCase()) {
                    params = undefined;
                    break;
                }
            }
            if (params)
                return malformed ? { route: candidate.route, params, malformed } : { route: candidate.route, params };
        }
        return undefined;
    }
}
//# sourceMappingURL=router.js.map