import { trimSlash } from './upstream-url.js';
export function resourceAdapter(spec) {
    const adapter = {
        request(call, provider) {
            let base = trimSlash(call.target.baseUrl ?? provider.baseUrl);
            if (spec.base)
                base = trimSlash(spec.base(base, call));
            const headers = { ...(provider.settings.headers ?? {}) };
            if (call.apiKey)
                headers.authorization = `Bearer ${call.apiKey}`;
            let body = null;
            if (spec.json) {
                headers['content-type'] = 'application/json';
                body = JSON.stringify(spec.json(call, provider));
            }
            else if (spec.multipart) {
                const form = spec.multipart(call);
                headers['content-type'] = form.contentType;
                if (form.contentLength !== undefined)
                    headers['content-length'] = String(form.contentLength);
                body = form.body;
            }
            const qs = spec.query?.(call)?.toString();
            return { method: spec.method, url: `${base}${spec.path(call, provider)}${qs ? `?${qs}` : ''}`, headers, body };
        },
    };
    if (spec.response)
        adapter.response = spec.response;
    if (spec.binary)
        adapter.binary = true;
    return adapter;
}
export function pathId(call, name) {
    return encodeURIComponent(call.params[name] ?? '');
}
//# sourceMappingURL=resource-adapter.js.map