/**
 * The Origin rule of /mcp (DNS-rebinding protection): a request without an Origin header is
 * not from a browser page and passes; one with an Origin passes only when server.allowedOrigins
 * lists it (scheme, host and port; `*` allows any).
 */
export function originAllowed(origin, allowed) {
    if (origin === undefined)
        return true;
    if (!allowed?.length)
        return false;
    if (allowed.includes('*'))
        return true;
    const normalized = normalizeOrigin(origin);
    return normalized !== undefined && allowed.some((a) => normalizeOrigin(a) === normalized);
}
function normalizeOrigin(value) {
    try {
        const url = new URL(value);
        if (url.origin === 'null')
            return undefined;
        return url.origin.toLowerCase();
    }
    catch {
        return undefined;
    }
}
//# sourceMappingURL=origin.js.map