/** `mcp:read` lists and reads; `mcp:write` also calls tools. */
export const SCOPE_READ = 'mcp:read';
export const SCOPE_WRITE = 'mcp:write';
export const ALL_SCOPES = [SCOPE_READ, SCOPE_WRITE];
export function canRead(scopes) {
    return !!scopes && (scopes.includes(SCOPE_READ) || scopes.includes(SCOPE_WRITE));
}
export function canWrite(scopes) {
    return !!scopes && scopes.includes(SCOPE_WRITE);
}
//# sourceMappingURL=scopes.js.map