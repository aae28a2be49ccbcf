import type { GatewayContext } from '../../../kernel/engine/context.js';

/**
 * Whether the request carries a gateway credential (a gateway token or config key, checked by
 * authenticate, which sets ctx.identity). Only such a request may use a key the gateway holds
 * (providers.<id>.apiKey, the keys and cloud secrets of configs.<name>).
 */
export function carriesGatewayCredential(ctx: GatewayContext<any>): boolean {
  const identity = ctx.identity;
  return identity !== null && identity.kind !== 'anonymous';
}
