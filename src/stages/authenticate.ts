import { defineStage } from '../engine/stage.js';
import { headerValue } from '../engine/context.js';
import { getExtension } from '../engine/services.js';
import { badRequest, GatewayError } from '../errors/gateway-error.js';
import { providerKeyFrom } from './provider-credentials.js';
import type { GatewayContext } from '../engine/context.js';

/** Checks a gateway credential (x-gateway-token) and sets ctx.identity; provided by the auth capability. */
export interface ProviderRouteAuthenticator {
  authenticate(ctx: GatewayContext, required: boolean): Promise<void>;
}

interface AuthenticateConfig {
  /** Demand a provider key (default true; false for routes served by the gateway itself). */
  providerKey?: boolean;
}

/**
 * Who is calling and with which provider credential. Order of checks (the contract's): the
 * provider header first (missing or unknown: 400, unless a routing config names the
 * providers), then the provider key (missing: 401), then the gateway credential when sent or
 * when auth.providerRoutes demands it.
 */
export default defineStage<AuthenticateConfig>({
  name: 'authenticate',
  description: 'Checks the provider header and key, and the gateway credential when configured.',
  schema: {
    type: 'object',
    additionalProperties: false,
    properties: { providerKey: { type: 'boolean', default: true } },
  },
  create(config, services) {
    const requireKey = config.providerKey ?? true;
    const defaultConfig = services.config.routing?.defaultConfig;
    const demandGatewayCredential = services.config.auth?.providerRoutes === true;
    return async (ctx, next) => {
      const provider = headerValue(ctx.headers, 'x-gateway-provider')?.trim().toLowerCase();
      const routed = Boolean(defaultConfig) || Boolean(headerValue(ctx.headers, 'x-gateway-config'));
      ctx.providerHeader = provider || undefined;
      const key = providerKeyFrom(ctx);
      if (key) {
        ctx.providerKey = key;
        ctx.secrets.push(key);
      }
      if (!routed) {
        if (!provider) throw badRequest('The x-gateway-provider header is required (or send a routing config in x-gateway-config).', 'x-gateway-provider');
        if (!services.providers.has(provider)) {
          throw badRequest(`Unknown provider "${provider}". Known providers: ${services.providers.ids().join(', ')}.`, 'x-gateway-provider');
        }
        const instance = services.providers.get(provider);
        if (requireKey && !key && instance?.requiresKey !== false) {
          throw new GatewayError('invalid_api_key', `No API key for ${provider}: send it in x-gateway-api-key or Authorization: Bearer <key>.`, { provider });
        }
      } else if (provider && !services.providers.has(provider)) {
        throw badRequest(`Unknown provider "${provider}". Known providers: ${services.providers.ids().join(', ')}.`, 'x-gateway-provider');
      }
      const gatewayAuth = getExtension<ProviderRouteAuthenticator>(services, 'provider-route-auth');
      if (gatewayAuth && (demandGatewayCredential || headerValue(ctx.headers, 'x-gateway-token'))) {
        await gatewayAuth.authenticate(ctx, demandGatewayCredential);
      } else if (demandGatewayCredential) {
        throw new GatewayError('invalid_api_key', 'A gateway credential (x-gateway-token) is required on this route.');
      }
      await next();
    };
  },
});
