import { describe, expect, it } from 'vitest';
import type { Identity } from '../../../../src/kernel/engine/context.js';
import { authorize, mayUseEndpoint } from '../../../../src/features/mcp/authorization.js';

const id = (over: Partial<Identity> = {}): Identity => ({ kind: 'token', id: 't', scopes: ['mcp:read', 'mcp:write'], ...over });

describe('the authorization decision', () => {
  it('mcp:read lists and reads; mcp:write also calls', () => {
    const reader = id({ scopes: ['mcp:read'] });
    expect(authorize(reader, { action: 'list', server: 's', tool: 'x' }).allowed).toBe(true);
    expect(authorize(reader, { action: 'read', server: 's' }).allowed).toBe(true);
    expect(authorize(reader, { action: 'call', server: 's', tool: 'x' })).toEqual({ allowed: false, reason: 'the credential lacks the mcp:write scope' });
    const writer = id({ scopes: ['mcp:write'] });
    expect(authorize(writer, { action: 'list', server: 's' }).allowed).toBe(true);
    expect(authorize(writer, { action: 'call', server: 's', tool: 'x' }).allowed).toBe(true);
    expect(authorize(id({ scopes: [] }), { action: 'list', server: 's' }).allowed).toBe(false);
    expect(mayUseEndpoint(id({ scopes: [] }))).toBe(false);
    expect(mayUseEndpoint(id({ scopes: undefined }))).toBe(false);
  });

  it('permissions.servers narrows to the listed servers', () => {
    const p = id({ permissions: { servers: ['github'] } });
    expect(authorize(p, { action: 'call', server: 'github', tool: 'issues' }).allowed).toBe(true);
    expect(authorize(p, { action: 'list', server: 'jira' })).toEqual({ allowed: false, reason: 'the credential may not use tool server jira' });
  });

  it('permissions.tools takes names and server__* patterns, and decides lists and calls alike', () => {
    const p = id({ permissions: { tools: ['github__list_issues', 'docs__*'] } });
    for (const action of ['list', 'call'] as const) {
      expect(authorize(p, { action, server: 'github', tool: 'list_issues' }).allowed).toBe(true);
      expect(authorize(p, { action, server: 'github', tool: 'delete_repo' }).allowed).toBe(false);
      expect(authorize(p, { action, server: 'docs', tool: 'anything' }).allowed).toBe(true);
      expect(authorize(p, { action, server: 'jira', tool: 'x' }).allowed).toBe(false);
    }
    // A server some pattern reaches is visible (its prompts and resources); others are not.
    expect(authorize(p, { action: 'read', server: 'github' }).allowed).toBe(true);
    expect(authorize(p, { action: 'read', server: 'jira' }).allowed).toBe(false);
  });

  it('servers and tools together: both must allow', () => {
    const p = id({ permissions: { servers: ['github'], tools: ['github__read_*', 'docs__*'] } });
    expect(authorize(p, { action: 'call', server: 'github', tool: 'read_file' }).allowed).toBe(true);
    expect(authorize(p, { action: 'call', server: 'github', tool: 'write_file' }).allowed).toBe(false);
    expect(authorize(p, { action: 'call', server: 'docs', tool: 'search' }).allowed).toBe(false);
  });

  it('pattern characters are literal except *', () => {
    const p = id({ permissions: { tools: ['a.b__x'] } });
    expect(authorize(p, { action: 'call', server: 'aXb', tool: 'x' }).allowed).toBe(false);
    expect(authorize(p, { action: 'call', server: 'a.b', tool: 'x' }).allowed).toBe(true);
  });
});
