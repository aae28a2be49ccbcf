/** `mcp:read` lists and reads; `mcp:write` also calls tools. */
export const SCOPE_READ = 'mcp:read';
export const SCOPE_WRITE = 'mcp:write';
export const ALL_SCOPES = [SCOPE_READ, SCOPE_WRITE] as const;

export function canRead(scopes: readonly string[] | undefined): boolean {
  return !!scopes && (scopes.includes(SCOPE_READ) || scopes.includes(SCOPE_WRITE));
}

export function canWrite(scopes: readonly string[] | undefined): boolean {
  return !!scopes && scopes.includes(SCOPE_WRITE);
}
