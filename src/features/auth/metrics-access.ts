import { headerValue, type GatewayContext } from '../../kernel/engine/context.js';
import type { GatewayServices } from '../../kernel/engine/services.js';
import { checkAdmin } from './admin-check.js';
import { CONFIG_KEYS, TOKEN_SERVICE } from './auth-services.js';
import { unauthenticated } from './challenge.js';
import { checkGatewayCredential } from './gateway-credentials.js';
import { publicBaseUrl } from './public-url.js';
import { bearerValue } from './secrets.js';
import { insecureTransportError } from './transport-security.js';

/**
 * Who may read /metrics, by metrics.auth: `none` (anyone: undefined is returned), `admin` (the
 * admin bearer token) or `gateway` (any gateway credential: an issued token or a key of
 * auth.apiKeys, in x-gateway-token or Authorization: Bearer). A refusal is a 401 with the
 * WWW-Authenticate challenge (403 for admin when no admin token is configured).
 */
export function metricsAccess(services: GatewayServices): ((ctx: GatewayContext) => Promise<void> | void) | undefined {
  const config = services.config;
  switch (config.metrics?.auth ?? 'none') {
    case 'admin':
      return (ctx) => checkAdmin(ctx.req, config);
    case 'gateway': {
      const tokens = services.require(TOKEN_SERVICE);
      const keys = services.get(CONFIG_KEYS);
      return async (ctx) => {
        const value = headerValue(ctx.headers, 'x-gateway-token')?.trim() || bearerValue(ctx.req.headers.authorization);
        if (!value) throw unauthenticated('/metrics needs a gateway credential: send it in x-gateway-token or Authorization: Bearer.', publicBaseUrl(ctx.req, config));
        ctx.secrets.push(value);
        const insecure = insecureTransportError(ctx.req, config);
        if (insecure) throw insecure;
        const result = await checkGatewayCredential(value, tokens, keys);
        if (!result.ok) throw unauthenticated(`/metrics: ${result.message}`, publicBaseUrl(ctx.req, config));
        ctx.identity = result.identity;
      };
    }
    default:
      return undefined;
  }
}
