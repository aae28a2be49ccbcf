import { defineStage } from '../engine/stage.js';
import { headerValue, type ResolvedTarget, type GatewayContext } from '../engine/context.js';
import { badRequest } from '../errors/gateway-error.js';
import { PipelineError } from '../engine/pipeline-compiler.js';
import { providerOptionsFrom } from './provider-credentials.js';
import type { GatewayServices } from '../engine/services.js';
import { PlanError } from '../routing/compile-plan.js';
import { GuardrailConfigError } from '../guardrails/registry.js';
import { PlanRunner } from '../routing/plan-runner.js';
import { breakerRegistry, routingConfigs } from '../routing/resilience-services.js';
import type { RoutingConfigs } from '../routing/config-source.js';

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
 * Picks the upstream target(s). With a routing config (x-gateway-config, or
 * routing.defaultConfig) the config's plan decides: single, fallback, loadbalance or
 * conditional, nested to any depth; without one it is the provider the headers name. The
 * rest of the chain (guardrail, cache, retry, forward) runs once per target attempt, with
 * ctx.target set. Named configs are compiled here, once, at start-up.
 */
export default defineStage<Record<string, never>>({
  name: 'route',
  description: 'Chooses the upstream target(s) for the request: fallback, load balancing, conditions, circuit breakers, deadlines.',
  schema: { type: 'object', additionalProperties: false },
  create(_config, services) {
    let configs: RoutingConfigs;
    try {
      configs = routingConfigs(services);
    } catch (err) {
      if (err instanceof PlanError || err instanceof GuardrailConfigError) throw new PipelineError(err.problems);
      throw err;
    }
    const runner = new PlanRunner(services, breakerRegistry(services), services.config.server?.bodyLimit ?? 10 * 1024 * 1024);
    return async (ctx, next) => {
      const plan = configs.planFor(ctx);
      if (plan) await runner.run(ctx, plan, next);
      else await runner.runSingle(ctx, targetFromHeaders(ctx, services), next);
    };
  },
});
