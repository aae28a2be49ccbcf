import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { redactRelayed, redactSecrets } from '../../kernel/errors/redact.js';

/**
 * JSON-RPC error codes the gateway answers with on /mcp. Standard codes from JSON-RPC; the
 * gateway's own from the implementation-defined range -32000..-32019.
 */
export const RPC = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  /** The credential may not do this (tool, prompt or resource outside its scopes/permissions). */
  FORBIDDEN: -32003,
  /** The tool server is down, (re)starting or did not answer in time. */
  SERVER_UNAVAILABLE: -32004,
  /** 2026-07-28: HTTP headers do not match the body, or required ones are missing. */
  HEADER_MISMATCH: -32020,
  /** 2026-07-28: a request needs a client capability the client did not declare. */
  MISSING_REQUIRED_CLIENT_CAPABILITY: -32021,
  /** 2026-07-28: the requested protocol version is not supported. */
  UNSUPPORTED_PROTOCOL_VERSION: -32022,
} as const;

/**
 * An error answered as a JSON-RPC error with exactly this code, message and data (the SDK's
 * server passes `code`, `message` and `data` of a thrown error through; McpError would prefix
 * the message).
 */
export class RpcFailure extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'RpcFailure';
  }
}

export const forbiddenCall = (reason: string) => new RpcFailure(RPC.FORBIDDEN, `Forbidden: ${reason}.`);
export const unknownName = (what: string, name: string) => new RpcFailure(RPC.INVALID_PARAMS, `Unknown ${what}: ${name}`);

/**
 * What a failed upstream request becomes for the caller: the tool server's own JSON-RPC error
 * (code and message kept, the server's configured secrets masked), or "unavailable" for a
 * timeout, a closed connection or a network failure.
 */
export function upstreamFailure(server: string, err: unknown, secrets: string[]): RpcFailure {
  if (err instanceof RpcFailure) return err;
  if (err instanceof McpError) {
    const text = err.message.replace(/^MCP error -?\d+: /, '');
    // The SDK client's own errors (a tool server may use the same codes for its errors).
    if (err.code === ErrorCode.RequestTimeout && /^(Request timed out|Maximum total timeout exceeded)$/.test(text)) {
      return new RpcFailure(RPC.SERVER_UNAVAILABLE, `Tool server ${server} did not answer in time.`);
    }
    if (err.code === ErrorCode.ConnectionClosed && text === 'Connection closed') return new RpcFailure(RPC.SERVER_UNAVAILABLE, `Tool server ${server} closed the connection.`);
    if (err.code === ErrorCode.ConnectionClosed && text === 'Request was cancelled')
      return new RpcFailure(RPC.SERVER_UNAVAILABLE, `The request to tool server ${server} was cancelled.`);
    const message = redactSecrets(text, secrets);
    return new RpcFailure(err.code, message, err.data === undefined ? undefined : redactRelayed(err.data, secrets));
  }
  if ((err as Error)?.name === 'AbortError') return new RpcFailure(RPC.SERVER_UNAVAILABLE, `The request to tool server ${server} was cancelled.`);
  return new RpcFailure(RPC.SERVER_UNAVAILABLE, `Tool server ${server} is unavailable.`);
}
