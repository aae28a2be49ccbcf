import { canRead, canWrite } from '../auth/scopes.js';
import { SEPARATOR } from './naming.js';
const ALLOW = { allowed: true };
const compiled = new Map();
/** `*` matches any run of characters; everything else literally. */
function glob(pattern) {
    let re = compiled.get(pattern);
    if (!re) {
        re = new RegExp(`^${pattern.split('*').map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
        if (compiled.size > 10_000)
            compiled.clear();
        compiled.set(pattern, re);
    }
    return re;
}
/** Whether a permissions.tools pattern can match some tool of `server`. */
function patternReachesServer(pattern, server) {
    if (pattern === '*')
        return true;
    const i = pattern.indexOf(SEPARATOR);
    return i > 0 && glob(pattern.slice(0, i)).test(server);
}
/** Whether permissions allow the server at all (permissions.servers, and permissions.tools reaching it). */
function serverAllowed(identity, server) {
    const p = identity.permissions;
    if (!p)
        return true;
    if (p.servers && !p.servers.some((s) => glob(s).test(server)))
        return false;
    if (p.tools && !p.tools.some((t) => patternReachesServer(t, server)))
        return false;
    return true;
}
/**
 * The one authorization decision, used for every list entry and every call: scopes first
 * (`mcp:read` lists and reads, `mcp:write` also calls), then permissions.servers and
 * permissions.tools (`server__tool` names or patterns such as `server__*`). Prompts and
 * resources follow the server rule; tools also the tool rule.
 */
export function authorize(identity, scope) {
    if (scope.action === 'call' ? !canWrite(identity.scopes) : !canRead(identity.scopes)) {
        return { allowed: false, reason: scope.action === 'call' ? 'the credential lacks the mcp:write scope' : 'the credential lacks the mcp:read scope' };
    }
    if (!serverAllowed(identity, scope.server))
        return { allowed: false, reason: `the credential may not use tool server ${scope.server}` };
    if (scope.tool !== undefined && identity.permissions?.tools) {
        const full = `${scope.server}${SEPARATOR}${scope.tool}`;
        if (!identity.permissions.tools.some((t) => glob(t).test(full)))
            return { allowed: false, reason: `the credential may not use tool ${full}` };
    }
    return ALLOW;
}
/** Whether the caller may use anything at all on /mcp (some scope), for the HTTP-level 403. */
export function mayUseEndpoint(identity) {
    return canRead(identity.scopes);
}
//# sourceMappingURL=authorization.js.map