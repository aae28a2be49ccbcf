import type { Identity } from '../../../kernel/engine/context.js';
import { authorize, type McpRequestScope } from '../authorization.js';

/** A JSON-RPC message as a client sends it (request, notification or response). */
export interface RpcMessage {
  jsonrpc?: unknown;
  id?: string | number | null;
  method?: unknown;
  params?: Record<string, unknown>;
  result?: unknown;
  error?: unknown;
}

const LISTS = new Set(['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list']);
const READS = new Set(['prompts/get', 'resources/read', 'completion/complete', 'resources/subscribe', 'resources/unsubscribe']);

/** What a message asks of `server`, in the terms of the one authorization decision. */
export function scopeOf(message: RpcMessage, server: string): McpRequestScope {
  const method = typeof message.method === 'string' ? message.method : '';
  if (method === 'tools/call') return { action: 'call', server, tool: String(message.params?.name ?? '') };
  if (READS.has(method)) return { action: 'read', server };
  // Lists, the handshake, ping, logging, notifications and answers to the server's requests.
  return { action: 'list', server };
}

export function isListRequest(message: RpcMessage): boolean {
  return typeof message.method === 'string' && LISTS.has(message.method);
}

/** The messages of a body (one, or a batch). */
export function messagesOf(body: unknown): RpcMessage[] {
  if (Array.isArray(body)) return body.filter((m): m is RpcMessage => !!m && typeof m === 'object');
  return body && typeof body === 'object' ? [body as RpcMessage] : [];
}

/** The first message of a body the caller may not send to `server`, with the reason; undefined when all may go. */
export function firstDenied(identity: Identity, server: string, messages: RpcMessage[]): { message: RpcMessage; reason: string; scope: McpRequestScope } | undefined {
  for (const message of messages) {
    const scope = scopeOf(message, server);
    const decision = authorize(identity, scope);
    if (!decision.allowed) return { message, reason: decision.reason, scope };
  }
  return undefined;
}

/** Whether tool lists must be filtered for this caller (permissions.tools narrows them). */
export function filtersTools(identity: Identity): boolean {
  return Array.isArray(identity.permissions?.tools);
}
