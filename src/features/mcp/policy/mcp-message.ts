import { readRequestBytes } from '../../../kernel/engine/request-body.js';
import type { GatewayContext } from '../../../kernel/engine/context.js';
import { defineSlot } from '../../../kernel/engine/slot.js';
import { badRequest } from '../../../contract/errors/gateway-error.js';

export type JsonRpcId = string | number;

/** One JSON-RPC message as a client sends it (request, notification or an answer to the server). */
export interface JsonRpcMessage {
  jsonrpc?: unknown;
  id?: unknown;
  method?: unknown;
  params?: Record<string, unknown>;
  result?: unknown;
  error?: unknown;
}

/**
 * The parsed JSON-RPC body of a POST to /mcp (one message or a batch), read once by the first
 * stage that needs it; the MCP transport takes it from here. Stages may change it in place
 * (a redacted tool argument): the transport forwards what the slot holds.
 */
export const MCP_MESSAGE = defineSlot<{ body: unknown; raw?: Buffer }>('mcp-message', 'the JSON-RPC message', { edge: true });

/**
 * The JSON-RPC body of this request: parsed on first use (400 in the contract's body for an
 * empty or malformed one), undefined for GET and DELETE.
 */
export async function mcpMessage(ctx: GatewayContext, limit: number): Promise<unknown> {
  const known = ctx.get(MCP_MESSAGE);
  if (known) return known.body;
  if (ctx.method !== 'POST') return undefined;
  const raw = await readRequestBytes(ctx.req, limit);
  if (raw.length === 0) throw badRequest('The request body is empty; a JSON-RPC message is required.', 'body');
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch (err) {
    throw badRequest(`The request body is not valid JSON: ${(err as Error).message}`, 'body');
  }
  ctx.set(MCP_MESSAGE, { body, raw });
  return body;
}

/**
 * The bytes to send on for this request's JSON-RPC body: as the client sent them, unless a
 * stage changed the message (then its JSON); undefined when there is no body.
 */
export function mcpMessageBytes(ctx: GatewayContext): Buffer | undefined {
  const known = ctx.get(MCP_MESSAGE);
  if (!known || known.body === undefined) return undefined;
  return (known.raw ??= Buffer.from(JSON.stringify(known.body)));
}

/** A stage changed the message in place: what is sent on is its JSON, no longer the client's bytes. */
export function messageChanged(ctx: GatewayContext): void {
  const known = ctx.get(MCP_MESSAGE);
  if (known) known.raw = undefined;
}

/** The messages of a body (a batch or one message); objects only. */
export function messagesOf(body: unknown): JsonRpcMessage[] {
  const list = Array.isArray(body) ? body : [body];
  return list.filter((m): m is JsonRpcMessage => m !== null && typeof m === 'object' && !Array.isArray(m));
}

export function isRequestId(id: unknown): id is JsonRpcId {
  return typeof id === 'string' || typeof id === 'number';
}

/** Whether the body holds at least one JSON-RPC request (a method and an id): what rate limits count. */
export function carriesRequest(body: unknown): boolean {
  return messagesOf(body).some((m) => typeof m.method === 'string' && isRequestId(m.id));
}
