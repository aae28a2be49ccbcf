import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Identity } from '../../../kernel/engine/context.js';
import type { Aggregator } from '../aggregator.js';
import { IDENTITY_META_KEY } from '../../auth/index.js';
import { gatewayUri, splitName } from '../naming.js';
import type { RemoteServer } from '../upstream/remote-server.js';
import { RpcFailure } from '../rpc-errors.js';
import type { RpcMessage } from './message-guard.js';
import type { RemoteRelay } from './remote-relay.js';
import type { ExchangeSignal } from './upstream-exchange.js';
import type { AnswerSteps } from '../dispatch/answer-steps.js';

const RESOURCE = Buffer.from('"resource');

/**
 * The lean path of the busiest request on /mcp: a `tools/call` of a client that keeps no
 * session, for a remote server that is up. The tool's name loses its `server__` prefix, the
 * request goes out on the gateway's shared session with the server, and the answer comes back
 * as it is (resource URIs in it mapped to `mcpgw://server/...` only when it has any). Answers
 * false when the request is not such a call (the SDK transport serves it).
 */
export async function relayAggregatedCall(
  relay: RemoteRelay,
  aggregator: Aggregator,
  req: IncomingMessage,
  res: ServerResponse,
  identity: Identity,
  body: unknown,
  identityHeaders: Record<string, string> | undefined,
  signal?: ExchangeSignal,
  steps?: AnswerSteps,
): Promise<boolean> {
  if (req.method !== 'POST' || req.headers['mcp-session-id'] !== undefined || !body || typeof body !== 'object' || Array.isArray(body)) return false;
  const message = body as RpcMessage;
  if (message.method !== 'tools/call' || message.id === undefined || message.id === null || typeof message.params?.name !== 'string') return false;
  const parts = splitName(message.params.name);
  const server = parts && aggregator.pool.get(parts.server);
  if (!parts || !server || server.kind !== 'remote' || server.status !== 'ready') return false;
  const remote = server as RemoteServer;
  const shared = remote.sharedSession;
  if (!shared) return false;

  const started = performance.now();
  const access = aggregator.access;
  const refusal = access.admit(identity, 'tools/call', { action: 'call', server: server.name, tool: parts.name }, parts.name, started);
  if (refusal) {
    const error = { code: refusal.code, message: refusal.message, ...(refusal.data === undefined ? {} : { data: refusal.data }) };
    const text = JSON.stringify({ jsonrpc: '2.0', id: message.id, error });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
    return true;
  }
  const params: Record<string, unknown> = { ...message.params, name: parts.name };
  const meta = params._meta as Record<string, unknown> | undefined;
  if (meta && IDENTITY_META_KEY in meta) {
    const rest = { ...meta };
    delete rest[IDENTITY_META_KEY];
    params._meta = rest;
  }
  const raw = Buffer.from(JSON.stringify({ ...message, params }));
  let headers: Record<string, string>;
  try {
    headers = await remote.upstreamHeaders(identity, identityHeaders);
  } catch (err) {
    if (!(err instanceof RpcFailure)) throw err;
    access.ended(identity, 'tools/call', server.name, parts.name, 'error', started, err.message);
    const text = JSON.stringify({
      jsonrpc: '2.0',
      id: message.id,
      error: err.data === undefined ? { code: err.code, message: err.message } : { code: err.code, message: err.message, data: err.data },
    });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
    return true;
  }
  headers['content-type'] = 'application/json';
  headers.accept = 'application/json, text/event-stream';
  const version = req.headers['mcp-protocol-version'];
  headers['mcp-protocol-version'] = typeof version === 'string' ? version : (shared.protocolVersion ?? '2025-06-18');
  if (shared.sessionId) headers['mcp-session-id'] = shared.sessionId;
  await relay.forward(req, res, remote, headers, raw, {
    firstId: message.id,
    signal,
    calls: [message.id as string | number],
    sharedSession: shared.sessionId,
    editIf: (answer) => answer.includes(RESOURCE),
    edit: (m) => mapResourceUris(m, server.name),
    steps,
    done: (status) => access.ended(identity, 'tools/call', server.name, parts.name, status < 300 ? 'ok' : 'error', started),
  });
  return true;
}

/** Resource links and embedded resources of a tool result point back through the gateway. */
function mapResourceUris(message: Record<string, unknown>, server: string): Record<string, unknown> {
  const result = message.result as { content?: Array<Record<string, unknown>> } | undefined;
  if (!result || !Array.isArray(result.content)) return message;
  const content = result.content.map((item) => {
    if (item?.type === 'resource_link' && typeof item.uri === 'string') return { ...item, uri: gatewayUri(server, item.uri) };
    const resource = item?.resource as Record<string, unknown> | undefined;
    if (item?.type === 'resource' && resource && typeof resource.uri === 'string') return { ...item, resource: { ...resource, uri: gatewayUri(server, resource.uri) } };
    return item;
  });
  return { ...message, result: { ...result, content } };
}
