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
