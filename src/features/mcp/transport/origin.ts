import { isIP } from 'node:net';

/** Where the gateway is, for the Origin rule. */
export interface OriginContext {
  /** The request's Host header. */
  host?: string;
  /** server.host: the address it listens on. */
  listenHost?: string;
  /** server.publicUrl, when set. */
  publicUrl?: string;
}

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

function isLoopbackHostname(hostname: string): boolean {
  const h = hostname.toLowerCase();
  return LOOPBACK_NAMES.has(h) || h.endsWith('.localhost') || /^127(\.\d{1,3}){3}$/.test(h);
}

/** Whether the gateway listens on a loopback address only. */
export function listensOnLoopbackOnly(listenHost: string | undefined): boolean {
  return listenHost !== undefined && isLoopbackHostname(listenHost);
}

/**
 * The Origin rule of /mcp (DNS-rebinding protection): a request without an Origin header is
 * not from a browser page and passes. One with an Origin passes when server.allowedOrigins lists
 * it (`*` allows any), when it is the gateway's own origin (server.publicUrl's, or the origin
 * the request was sent to — its Host — when that host is a loopback name or an IP address,
 * which no DNS answer can rebind), or, when the gateway listens on loopback only, when it is
 * any loopback origin. A page on evil.example resolving to 127.0.0.1 sends
 * `Host: evil.example` and `Origin: http://evil.example`, and is refused.
 */
export function originAllowed(origin: string | undefined, allowed: string[] | undefined, where: OriginContext = {}): boolean {
  if (origin === undefined) return true;
  const url = parseOrigin(origin);
  if (!url) return false;
  if (allowed?.includes('*')) return true;
  if (allowed?.some((a) => parseOrigin(a)?.origin === url.origin)) return true;
  if (where.publicUrl && parseOrigin(where.publicUrl)?.origin === url.origin) return true;
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  if (listensOnLoopbackOnly(where.listenHost) && isLoopbackHostname(url.hostname)) return true;
  if (where.host && where.host.toLowerCase() === url.host && (isLoopbackHostname(url.hostname) || isIP(hostname) !== 0)) return true;
  return false;
}

function parseOrigin(value: string): URL | undefined {
  try {
    const url = new URL(value);
    if (url.origin === 'null') return undefined;
    return url;
  } catch {
    return undefined;
  }
}
