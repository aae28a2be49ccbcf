import type { Identity } from '../../../kernel/engine/context.js';
import type { AccessStep, Refusal } from '../dispatch/access-step.js';
import { isListMethod, scopeOf, targetName } from '../dispatch/method-table.js';

/** A JSON-RPC message as a client sends it (request, notification or response). */
export interface RpcMessage {
  jsonrpc?: unknown;
  id?: string | number | null;
  method?: unknown;
  params?: Record<string, unknown>;
  result?: unknown;
  error?: unknown;
}

export function isListRequest(message: RpcMessage): boolean {
  return isListMethod(message.method);
}

/** The messages of a body (one, or a batch). */
export function messagesOf(body: unknown): RpcMessage[] {
  if (Array.isArray(body)) return body.filter((m): m is RpcMessage => !!m && typeof m === 'object');
  return body && typeof body === 'object' ? [body as RpcMessage] : [];
}

/**
 * The first message of a body the caller may not send to `server`, with its refusal (audited
 * by the access step); undefined when all may go.
 */
export function firstDenied(
  access: AccessStep,
  identity: Identity,
  server: string,
  messages: RpcMessage[],
  started?: number,
): { message: RpcMessage; refusal: Refusal } | undefined {
  for (const message of messages) {
    const scope = scopeOf(message, server);
    const refusal = access.admit(identity, typeof message.method === 'string' ? message.method : 'message', scope, targetName(message), started);
    if (refusal) return { message, refusal };
  }
  return undefined;
}
