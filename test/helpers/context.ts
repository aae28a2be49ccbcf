import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { GatewayContext, type RouteDef } from '../../src/kernel/engine/context.js';
import { Rejection } from '../../src/contract/errors/rejection.js';

/** A request context for unit tests: a real GatewayContext over a stand-in request (no socket). */
export function makeContext<E extends RouteDef>(
  route: E,
  options: { url?: string; method?: string; headers?: IncomingHttpHeaders; params?: Record<string, string>; ip?: string; body?: string } = {},
): GatewayContext<E> {
  const fields = {
    url: options.url ?? (route.path.includes('{') ? route.path.replace(/\{(\w+)\}/g, (_m, n: string) => options.params?.[n] ?? n) : route.path),
    method: options.method ?? (route.method === '*' ? 'GET' : route.method),
    headers: options.headers ?? {},
    socket: { remoteAddress: options.ip ?? '10.0.0.1' },
  };
  // With a body, the request is a stream of it (as node's IncomingMessage is).
  const req = (options.body !== undefined ? Object.assign(Readable.from([Buffer.from(options.body)]), fields) : fields) as unknown as IncomingMessage;
  return new GatewayContext(
    { rejection: (status, detail) => new Rejection(status, detail) },
    'req-test',
    route,
    req,
    {} as ServerResponse,
    options.params,
    new AbortController().signal,
  );
}
