import { isIP } from 'node:net';
import type { GatewayConfig } from '../../generated/gateway.js';

/** Whether a listen address accepts connections from this machine only. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h === '::1') return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  return h.startsWith('::ffff:127.');
}

/**
 * Warnings for a gateway that serves routes without authentication on an address other than
 * loopback (contract section 1): provider routes without auth.providerRoutes, /mcp without
 * auth.enabled. One line each, logged once at start-up.
 */
export function exposureWarnings(config: GatewayConfig, host: string): string[] {
  if (isLoopbackHost(host)) return [];
  const auth = config.auth ?? {};
  const out: string[] = [];
  if (auth.providerRoutes !== true) {
    const held = Object.entries(config.providers ?? {})
      .filter(([, s]) => typeof (s as { apiKey?: unknown }).apiKey === 'string')
      .map(([id]) => id);
    out.push(
      `provider routes are served without authentication on ${host}: anyone who can reach it may use the gateway` +
        (held.length ? ` and the provider keys it holds (${held.join(', ')})` : '') +
        '; set auth.providerRoutes: true, or listen on 127.0.0.1 (server.host)',
    );
  }
  if (!auth.enabled && Object.keys(config.mcpServers ?? {}).length > 0) {
    out.push(`/mcp is served without authentication on ${host}: anyone who can reach it may call every tool server; set auth.enabled: true, or listen on 127.0.0.1 (server.host)`);
  }
  return out;
}
