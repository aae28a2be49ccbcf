import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { GatewayConfig } from '../../generated/gateway.js';

/**
 * The gateway's public address (no trailing slash): server.publicUrl when set, otherwise the
 * scheme and host the request came in on.
 */
export function publicBaseUrl(req: IncomingMessage, config: GatewayConfig): string {
  const configured = config.server?.publicUrl;
  if (configured) return configured.replace(/\/+$/, '');
  const scheme = (req.socket as TLSSocket).encrypted ? 'https' : 'http';
  const host = req.headers.host ?? `${req.socket.localAddress}:${req.socket.localPort}`;
  return `${scheme}://${host}`;
}

/** Where the RFC 9728 protected-resource metadata of this gateway lives. */
export function resourceMetadataUrl(base: string): string {
  return `${base}/.well-known/oauth-protected-resource`;
}
