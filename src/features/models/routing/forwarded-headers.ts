import type { IncomingHttpHeaders } from 'node:http';
import { badRequest } from '../../../contract/errors/gateway-error.js';
import { headerSafe } from '../providers/shared/caller-values.js';

/** An HTTP header name (RFC 9110 token). */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * Names a target may never forward: the virtual host, hop-by-hop headers (they describe one
 * connection, not the request), and headers the gateway itself sets upstream (the provider's
 * key in every spelling, the body's framing, the caller identity of forward-identity).
 * `accept-encoding` (and `te`) would have the upstream compress its answer, which the gateway
 * reads and passes on as plain bytes: the client would get gzip without a content-encoding.
 */
const REFUSED = new Set([
  'host',
  'connection',
  'keep-alive',
  'te',
  'trailer',
  'trailers',
  'transfer-encoding',
  'upgrade',
  'content-length',
  'content-type',
  'content-encoding',
  'accept-encoding',
  'expect',
  'authorization',
  'x-api-key',
  'api-key',
  'x-goog-api-key',
  'x-user-email',
  'x-user-name',
  'x-user-team',
  'x-user-roles',
  'x-organization-id',
]);

/** Prefixes of refused names: proxy hop headers, and the gateway's own request headers (its credentials among them). */
const REFUSED_PREFIXES = ['proxy-', 'x-gateway-'];

/**
 * Why `name` may not be listed in `forward_headers`, or undefined when it may.
 * `operatorHeaders`: the names (lower case) the operator sets in providers.<id>.headers.
 */
export function forwardHeaderProblem(name: string, operatorHeaders: ReadonlySet<string> | undefined): string | undefined {
  if (!TOKEN.test(name)) return 'is not a header name';
  const lower = name.toLowerCase();
  if (lower === 'host') return 'host is never forwarded (the gateway addresses the provider itself)';
  if (REFUSED.has(lower) || REFUSED_PREFIXES.some((p) => lower.startsWith(p))) return `${lower} is set by the gateway or describes one connection, and is never forwarded`;
  if (operatorHeaders?.has(lower)) return `${lower} is set by the operator (providers.<id>.headers), and is never forwarded`;
  return undefined;
}

/**
 * Adds the caller's headers a target forwards to an upstream request's `headers`. A name the
 * request already carries in any casing (the provider's key, an operator header, a header the
 * provider sets) keeps the gateway's value: a caller's value never joins or replaces it. A value
 * a header cannot carry (CR, LF, NUL) is a 400 naming the header, and nothing is sent.
 */
export function addForwardedHeaders(headers: Record<string, string>, names: readonly string[], incoming: IncomingHttpHeaders): void {
  let present: Set<string> | undefined;
  for (const name of names) {
    const lower = name.toLowerCase();
    const value = incoming[lower];
    if (typeof value !== 'string') continue;
    present ??= new Set(Object.keys(headers).map((k) => k.toLowerCase()));
    if (present.has(lower)) continue;
    if (!headerSafe(value)) throw badRequest(`The ${lower} header (forward_headers) must not contain line breaks, NUL or other characters a header cannot carry.`, lower);
    headers[lower] = value;
    present.add(lower);
  }
}

/** Removes from `headers` every header still carrying a value the operator set (providers.<id>.headers): for a caller's custom host. */
export function withoutOperatorHeaders(headers: Record<string, string>, operator: Record<string, string> | undefined): void {
  if (!operator) return;
  for (const [name, value] of Object.entries(operator)) {
    const lower = name.toLowerCase();
    for (const key of Object.keys(headers)) if (key.toLowerCase() === lower && headers[key] === value) delete headers[key];
  }
}
