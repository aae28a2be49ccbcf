import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { redactRelayed, redactSecrets } from '../../../kernel/errors/redact.js';
import { RPC, RpcFailure } from '../rpc-errors.js';

/**
 * What a failed upstream request becomes for the caller: the tool server's own JSON-RPC error
 * (code and message kept, the server's configured secrets masked), or "unavailable" for a
 * timeout, a closed connection or a network failure, "answered HTTP <status>" for an HTTP error.
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
  // The server is up but answered with an HTTP error: its status, never what it said (it may hold anything).
  if (err instanceof StreamableHTTPError && typeof err.code === 'number' && err.code >= 400 && err.code <= 599)
    return new RpcFailure(RPC.SERVER_UNAVAILABLE, `Tool server ${server} failed with HTTP ${err.code}.`);
  return new RpcFailure(RPC.SERVER_UNAVAILABLE, `Tool server ${server} is unavailable.`);
}
