import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { Identity } from '../../kernel/engine/context.js';

/** Who a session belongs to: the credential that opened it (its kind and id); every request is checked against it. */
export const ownerOf = (identity: Identity): string => `${identity.kind}:${identity.id}`;

/** The identity of the HTTP request that carried a JSON-RPC message (every request is authenticated), as the SDK passes it on. */
export function authInfoFor(identity: Identity): AuthInfo {
  return { token: '', clientId: ownerOf(identity), scopes: identity.scopes ?? [], extra: { identity } };
}
