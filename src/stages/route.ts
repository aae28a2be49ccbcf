import { defineStage } from '../engine/stage.js';
import { headerValue, type ResolvedTarget, type GatewayContext } from '../engine/context.js';
import { badRequest } from '../errors/gateway-error.js';
import { providerOptionsFrom } from './provider-credentials.js';
import type { GatewayServices } from '../engine/services.js';

/** The single target named by the request headers (x-gateway-provider and the provider key). */
export function targetFromHeaders(ctx: GatewayContext, services: GatewayServices): ResolvedTarget {
  const provider = ctx.providerHeader;
  if (!provider) throw badRequest('The x-gateway-provider header is required.', 'x-gateway-provider');
  const target: ResolvedTarget = { provider, apiKey: ctx.providerKey, options: providerOptionsFrom(ctx) };
  const customHost = headerValue(ctx.headers, 'x-gateway-custom-host');
  if (customHost) target.baseUrl = checkCustomHost(customHost, services, 'x-gateway-custom-host');
  return target;
}

/** custom_host is honoured only where routing.allowCustomHost is true. */
export function checkCustomHost(value: string, services: GatewayServices, param: string): string {
  if (services.config.routing?.allowCustomHost !== true) {
    throw badRequest(`${param} is not allowed: this gateway does not set routing.allowCustomHost.`, param);
  }
  if (!/^https?:\/\/[^\s/]+/i.test(value)) throw badRequest(`${param} must be an http(s) URL.`, param);
  return value;
}

/**
 * Picks the upstream target. Without a routing config it is the one provider the headers
 * name; then the rest of the chain (retry, guardrail, forward) runs for it.
 */
export default defineStage<Record<string, never>>({
  name: 'route',
  description: 'Chooses the upstream target(s) for the request.',
  schema: { type: 'object', additionalProperties: false },
  create(_config, services) {
    return async (ctx, next) => {
      ctx.target = targetFromHeaders(ctx, services);
      await next();
    };
  },
});
