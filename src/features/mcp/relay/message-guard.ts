import type { Identity } from '../../../kernel/engine/context.js';
import { redactAnswer } from '../../../kernel/errors/redact.js';
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

/**
 * An initialize answer whose instructions passed the server's pin (a change held under
 * `pin: strict`: the pinned text, or none); the answer as it came when nothing is held.
 */
export function pinnedInstructions(access: AccessStep, identity: Identity, server: { name: string; secrets: string[] }, message: RpcMessage): RpcMessage {
  const result = message.result as Record<string, unknown> | undefined;
  if (!result || typeof result !== 'object' || Array.isArray(result)) return message;
  const sent = typeof result.instructions === 'string' ? redactAnswer(result.instructions, server.secrets) : undefined;
  const served = access.screenInstructions(identity, server.name, sent);
  if (served === sent) return message;
  const { instructions: _dropped, ...rest } = result;
  return { ...message, result: served === undefined ? rest : { ...rest, instructions: served } };
}

/**
 * What the gateway answers to a POSTed body that is not a JSON-RPC message it can serve, before
 * the SDK's transport sees it (which would answer a parse error for a well-parsed body, or an
 * internal error with its schema's complaint): -32600 Invalid Request (HTTP 400, as the transport
 * answers its own refusals) for a message without a string `method` (a response aside) or with
 * `params` that are not an object; -32602 Invalid params (HTTP 200, the request's error) for a
 * `tools/call` or `prompts/get` without a string `name`. Undefined for a body it may serve.
 */
export function malformedBody(body: unknown): { status: number; error: Record<string, unknown> } | undefined {
  const messages = Array.isArray(body) ? (body as unknown[]) : [body];
  for (const m of messages) {
    const msg = (m && typeof m === 'object' && !Array.isArray(m) ? m : {}) as RpcMessage;
    const id = typeof msg.id === 'string' || typeof msg.id === 'number' ? msg.id : null;
    const invalid = (why: string) => ({ status: 400, error: { jsonrpc: '2.0', id, error: { code: -32600, message: `Invalid Request: ${why}.` } } });
    if (msg !== m) return invalid('a JSON-RPC 2.0 message is an object');
    if (msg.jsonrpc !== '2.0') return invalid('"jsonrpc" must be "2.0"');
    if (msg.method === undefined && ('result' in msg || 'error' in msg) && id !== null) continue;
    if (typeof msg.method !== 'string' || !msg.method) return invalid('a request or notification needs a "method" string');
    const params = msg.params as unknown;
    if (params !== undefined && (params === null || typeof params !== 'object' || Array.isArray(params))) return invalid('"params" must be an object');
    if (id !== null && (msg.method === 'tools/call' || msg.method === 'prompts/get') && typeof msg.params?.name !== 'string' && !Array.isArray(body)) {
      return { status: 200, error: { jsonrpc: '2.0', id, error: { code: -32602, message: `Invalid params: ${msg.method} needs a "name" string.` } } };
    }
  }
  return undefined;
}
