/** The URL without one trailing slash. */
export function trimSlash(url) {
    return url.endsWith('/') ? url.slice(0, -1) : url;
}
/** The base URL of one call: the target's custom host when routing allows it, else the provider's. */
export function baseUrlOf(call, provider) {
    return call.target.baseUrl ? trimSlash(call.target.baseUrl) : provider.baseUrl;
}
//# sourceMappingURL=upstream-url.js.map