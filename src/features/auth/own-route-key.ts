import type { GatewayConfig } from '../../generated/gateway.js';
import type { GatewayContext } from '../../kernel/engine/context.js';
import { forbidden, unauthorized } from '../../contract/errors/gateway-error.js';
import type { ConfigKeys } from './config-keys.js';
import { checkGatewayCredential } from './gateway-credentials.js';
import { GATEWAY_KEY, type GatewayKey } from './gateway-key.js';
import { presentedGatewayKey } from './provider-route-auth.js';
import type { TokenService } from './token-service.js';
import { insecureTransportError } from './transport-security.js';

/**
 * The gateway key of a route the gateway answers itself for a key (GET /v1/me, GET
 * /v1/models/{model}): read as provider routes that demand a gateway credential read it (a
 * config key too), refused as they refuse it over plain HTTP off loopback; sets ctx.identity
 * and the GATEWAY_KEY slot. A missing or bad key is a 401, a blocked one a 403.
 */
export async function requireGatewayKey(ctx: GatewayContext, config: GatewayConfig, tokens: TokenService, keys: ConfigKeys | undefined): Promise<GatewayKey> {
  const value = presentedGatewayKey(ctx, true)?.value;
  if (!value) throw unauthorized('Send a gateway key (Authorization: Bearer <key>, x-api-key, api-key or x-gateway-token).');
  ctx.secrets.push(value);
  const insecure = insecureTransportError(ctx.req, config);
  if (insecure) throw insecure;
  const checked = await checkGatewayCredential(value, tokens, keys);
  if (!checked.ok) throw checked.blocked ? forbidden(checked.message) : unauthorized(checked.message);
  ctx.identity = checked.identity;
  ctx.set(GATEWAY_KEY, checked.key);
  return checked.key;
}
