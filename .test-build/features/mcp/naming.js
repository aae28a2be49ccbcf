/**
 * Names on the aggregated endpoint /mcp: tools, prompts and resources of server S appear as
 * `S__<name>` (server names never contain `__`), and resource URIs as
 * `mcpgw://S/<original URI>` — the original URI kept verbatim after the server segment, so the
 * mapping is reversible and URI templates stay templates.
 */
export const SEPARATOR = '__';
export const URI_SCHEME = 'mcpgw:';
const URI_PREFIX = `${URI_SCHEME}//`;
export function prefixedName(server, name) {
    return `${server}${SEPARATOR}${name}`;
}
/** `S__name` -> { server: S, name }; undefined when there is no separator. */
export function splitName(prefixed) {
    const i = prefixed.indexOf(SEPARATOR);
    if (i <= 0 || i + SEPARATOR.length >= prefixed.length)
        return undefined;
    return { server: prefixed.slice(0, i), name: prefixed.slice(i + SEPARATOR.length) };
}
export function gatewayUri(server, uri) {
    return `${URI_PREFIX}${server}/${uri}`;
}
/** `mcpgw://S/<original>` -> { server: S, uri: original }; undefined for any other URI. */
export function splitUri(uri) {
    if (!uri.startsWith(URI_PREFIX))
        return undefined;
    const rest = uri.slice(URI_PREFIX.length);
    const slash = rest.indexOf('/');
    if (slash <= 0 || slash === rest.length - 1)
        return undefined;
    return { server: rest.slice(0, slash), uri: rest.slice(slash + 1) };
}
//# sourceMappingURL=naming.js.map