/**
 * The gateway's public address (no trailing slash): server.publicUrl when set, otherwise the
 * scheme and host the request came in on.
 */
export function publicBaseUrl(req, config) {
    const configured = config.server?.publicUrl;
    if (configured)
        return configured.replace(/\/+$/, '');
    const scheme = req.socket.encrypted ? 'https' : 'http';
    const host = req.headers.host ?? `${req.socket.localAddress}:${req.socket.localPort}`;
    return `${scheme}://${host}`;
}
/** Where the RFC 9728 protected-resource metadata of this gateway lives. */
export function resourceMetadataUrl(base) {
    return `${base}/.well-known/oauth-protected-resource`;
}
//# sourceMappingURL=public-url.js.map