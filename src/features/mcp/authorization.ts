import type { Identity } from '../../kernel/engine/context.js';
import { canRead, canWrite } from '../auth/index.js';
import { SEPARATOR } from './naming.js';
import { wildcard, type Wildcard } from '../../kernel/text/wildcard.js';

/**
 * What a caller wants to do on a tool server: `list` (tools/prompts/resources lists), `read`
 * (prompts/get, resources/read, completions) or `call` (tools/call). `tool` names the tool
 * (its own name, without the server prefix) for tool lists and calls.
 */
export interface McpRequestScope {
  action: 'list' | 'read' | 'call';
  server: string;
  tool?: string;
}

export type Decision = { allowed: true } | { allowed: false; reason: string };

const ALLOW: Decision = { allowed: true };

const compiled = new Map<string, Wildcard>();

/** `*` matches any run of characters; everything else literally (linear-time, see kernel/text/wildcard). */
function glob(pattern: string): Wildcard {
  let re = compiled.get(pattern);
  if (!re) {
    re = wildcard(pattern);
    if (compiled.size > 10_000) compiled.clear();
    compiled.set(pattern, re);
  }
  return re;
}

/** Whether a permissions.tools pattern can match some tool of `server`. */
export function patternReachesServer(pattern: string, server: string): boolean {
  if (pattern === '*') return true;
  const i = pattern.indexOf(SEPARATOR);
  return i > 0 && glob(pattern.slice(0, i)).test(server);
}

/** Whether permissions allow the server at all (permissions.servers, and permissions.tools reaching it). */
function serverAllowed(identity: Identity, server: string): boolean {
  const p = identity.permissions;
  if (!p) return true;
  if (p.servers && !p.servers.some((s) => glob(s).test(server))) return false;
  if (p.tools && !p.tools.some((t) => patternReachesServer(t, server))) return false;
  return true;
}

/**
 * The one authorization decision, used for every list entry and every call: scopes first
 * (`mcp:read` lists and reads, `mcp:write` also calls), then permissions.servers and
 * permissions.tools (`server__tool` names or patterns such as `server__*`). Prompts and
 * resources follow the server rule; tools also the tool rule.
 */
export function authorize(identity: Identity, scope: McpRequestScope): Decision {
  if (scope.action === 'call' ? !canWrite(identity.scopes) : !canRead(identity.scopes)) {
    return { allowed: false, reason: scope.action === 'call' ? 'the credential lacks the mcp:write scope' : 'the credential lacks the mcp:read scope' };
  }
  if (!serverAllowed(identity, scope.server)) return { allowed: false, reason: `the credential may not use tool server ${scope.server}` };
  if (scope.tool !== undefined && identity.permissions?.tools) {
    const full = `${scope.server}${SEPARATOR}${scope.tool}`;
    if (!identity.permissions.tools.some((t) => glob(t).test(full))) return { allowed: false, reason: `the credential may not use tool ${full}` };
  }
  return ALLOW;
}

/** Whether the caller may use anything at all on /mcp (some scope), for the HTTP-level 403. */
export function mayUseEndpoint(identity: Identity): boolean {
  return canRead(identity.scopes);
}
