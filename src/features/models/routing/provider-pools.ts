import type { GatewayConfig } from '../../../generated/gateway.js';

/**
 * The upstream pools of their own that the config asks for: providers.<id>.connections is the
 * most keep-alive connections per origin that provider's requests may open (the shared pool's
 * 256 otherwise). Many slow streams at once need more than 256; a provider that limits
 * concurrent connections needs fewer.
 */
export function providerPools(config: GatewayConfig): Record<string, number> | undefined {
  let pools: Record<string, number> | undefined;
  for (const [id, settings] of Object.entries(config.providers ?? {})) {
    const connections = settings?.connections;
    if (typeof connections === 'number') (pools ??= {})[id] = connections;
  }
  return pools;
}
