import type { Aggregator, OperationContext, View } from '../aggregator.js';
import { RPC, RpcFailure } from '../rpc-errors.js';
import { MCP_METHODS } from './method-table.js';

type Result = Record<string, unknown>;

/** How the transport asks: a stateless request (no session-only method) that gets whole lists, or a session's request that pages. */
export interface DispatchMode {
  /** Lists answered whole (every page of every server), not one page at a time. */
  wholeLists?: boolean;
  /** No session: the methods that need one are not served. */
  stateless?: boolean;
}

/**
 * The one dispatcher of the gateway's own MCP requests over its tool servers: a method is
 * looked up in the one method table and served by the aggregator (whose access step decides,
 * screens and audits). The transports (the gateway's sessions through the SDK, the stateless
 * revision) only frame what comes in and goes out.
 */
export function dispatchRequest(aggregator: Aggregator, method: string, params: Result, view: View, op: OperationContext, mode: DispatchMode = {}): Promise<Result> {
  const entry = Object.hasOwn(MCP_METHODS, method) ? MCP_METHODS[method] : undefined;
  if (!entry || (mode.stateless && entry.sessionOnly)) return Promise.reject(new RpcFailure(RPC.METHOD_NOT_FOUND, `Method not found: ${method}`));
  if (entry.list) {
    const { key } = entry.list;
    if (mode.wholeLists) return aggregator.list(key, view, op).then((items) => ({ [key]: items }));
    return aggregator
      .listPage(key, view, typeof params.cursor === 'string' ? params.cursor : undefined, op)
      .then((page) => ({ [key]: page.items, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) }));
  }
  if (!entry.run) return Promise.reject(new RpcFailure(RPC.METHOD_NOT_FOUND, `Method not found: ${method}`));
  return entry.run(aggregator, view, params, op);
}
