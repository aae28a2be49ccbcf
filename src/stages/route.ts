import type { RouteStageConfig } from '../generated/stages/route.js';
import { schemaDocument } from '../kernel/config/schema-validator.js';
import { headerValue } from '../kernel/engine/context.js';
import { BODY, ensureJsonBody, requestMetadata } from '../kernel/engine/request-body.js';
import type { GatewayServices } from '../kernel/engine/services.js';
import { defineStage } from '../kernel/engine/stage.js';
import { ExtensionConfigError } from '../kernel/engine/extension.js';
import { PipelineError } from '../kernel/engine/pipeline-compiler.js';
import { badRequest, modelNotFound } from '../contract/errors/gateway-error.js';
import { namesItsModel } from '../contract/routes.js';
import { API_TEAMS, CATALOGUE, CATALOGUE_MODEL, teamModels, teamModelsReady, type Catalogue } from '../features/governance/index.js';
import { GATEWAY_KEY } from '../features/auth/index.js';
import {
  PROVIDER,
  PROVIDER_KEY,
  ROUTED_AS,
  ROUTING,
  PlanError,
  planAt,
  providerOptionsFrom,
  routingConfigs,
  type ModelContext,
  type ResolvedTarget,
  type RoutingConfigs,
} from '../features/models/index.js';
import { GuardrailConfigError } from '../features/guardrails/index.js';

/** The single target named by the request headers (x-gateway-provider and the provider key). */
export function targetFromHeaders(ctx: ModelContext, services: GatewayServices): ResolvedTarget {
  const provider = ctx.get(PROVIDER);
  if (!provider) throw badRequest('The x-gateway-provider header is required.', 'x-gateway-provider');
  const target: ResolvedTarget = { provider, apiKey: ctx.get(PROVIDER_KEY), options: providerOptionsFrom(ctx) };
  const customHost = headerValue(ctx.headers, 'x-gateway-custom-host');
  if (customHost) {
    target.baseUrl = checkCustomHost(customHost, services, 'x-gateway-custom-host');
    target.callerHost = true;
  }
  return target;
}

/**
 * Routing by the body's model (a gateway key, no x-gateway-provider, no x-gateway-config): the
 * catalogue's plan for that name, when the key (and its team) may use it; else a 404
 * model_not_found. The catalogue model is kept in the CATALOGUE_MODEL slot. A request that names
 * no model but was given one to route as (ROUTED_AS) goes to that model's target of that index.
 */
function catalogueRouter(catalogue: Catalogue, services: GatewayServices, bodyLimit: number, apiTeams: Parameters<typeof teamModels>[2]) {
  return async (ctx: ModelContext, next: () => Promise<void>): Promise<void> => {
    const routedAs = ctx.get(ROUTED_AS);
    const params = routedAs ? {} : await requestParams(ctx, bodyLimit);
    const name = routedAs ? routedAs.model : params.model;
    if (typeof name !== 'string' || !name) throw badRequest('model is required: the name of a catalogue model (GET /v1/models lists them).', 'model');
    const key = ctx.get(GATEWAY_KEY);
    const route = catalogue.route(name, key, teamModels(services.config, key, apiTeams));
    if (!route) throw modelNotFound(name);
    ctx.set(CATALOGUE_MODEL, route.choice);
    const plan = routedAs ? planAt(route.plan, routedAs.index) : route.plan;
    if (!plan)
      throw badRequest(
        `The catalogue model ${name} no longer has the target this was made on (${routedAs!.index}): send it with a routing config (x-gateway-config).`,
        'x-gateway-config',
      );
    ctx.set(ROUTING, plan.conditional ? { plan, conditionInput: { metadata: requestMetadata(ctx), params }, byModel: name } : { plan, byModel: name });
    return next();
  };
}

/**
 * The request's parameters: the JSON body's members, or an upload's text fields (the validate
 * stage has read and checked the whole form: a field sent twice is not one value, so not read).
 */
async function requestParams(ctx: ModelContext, bodyLimit: number): Promise<Record<string, unknown>> {
  if (ctx.endpoint.body === 'multipart') {
    const fields = ctx.get(BODY)?.fields;
    if (!fields || typeof fields !== 'object') return {};
    return Object.fromEntries(Object.entries(fields).filter(([, value]) => typeof value === 'string'));
  }
  await ensureJsonBody(ctx, bodyLimit);
  const body = ctx.get(BODY);
  return body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
}

/** Whether a request with a gateway key is routed by its model: a JSON body, or an upload of a route whose form names its model. */
function routedByModel(ctx: ModelContext): boolean {
  return namesItsModel(ctx.endpoint);
}

/** A caller's custom host is honoured only where routing.allowCustomHost is true. */
export function checkCustomHost(value: string, services: GatewayServices, param: string): string {
  if (services.config.routing?.allowCustomHost !== true) {
    throw badRequest(`${param} is not allowed: this gateway does not set routing.allowCustomHost.`, param);
  }
  if (!/^https?:\/\/[^\s/]+/i.test(value)) throw badRequest(`${param} must be an http(s) URL.`, param);
  return value;
}

/**
 * Decides where the request goes. With a routing config (x-gateway-config, or the stage's
 * defaultConfig, or routing.defaultConfig) it is the config's plan (single, fallback,
 * loadbalance or conditional, nested to any depth), with what its conditions test
 * (x-gateway-metadata and the body) read once; without one it is the provider the headers
 * name. The fallback stage after it runs the decision. Named configs are compiled once, at
 * start-up.
 */
export default defineStage<RouteStageConfig, ModelContext>({
  name: 'route',
  description: 'Decides where the request goes: the routing config (x-gateway-config or a default) or the provider the headers name.',
  schema: schemaDocument('stages/route.schema.json'),
  requires: [PROVIDER],
  provides: [ROUTING, CATALOGUE_MODEL],
  once: true,
  reads: [BODY, GATEWAY_KEY, PROVIDER_KEY, ROUTED_AS],
  create(config, services) {
    let configs: RoutingConfigs;
    try {
      configs = routingConfigs(services);
    } catch (err) {
      if (err instanceof PlanError || err instanceof GuardrailConfigError) throw new PipelineError(err.problems);
      throw err;
    }
    if (config.defaultConfig !== undefined && !configs.has(config.defaultConfig)) {
      throw new ExtensionConfigError([`defaultConfig: names no config under configs (${config.defaultConfig})`]);
    }
    const defaultName = config.defaultConfig ?? services.config.routing?.defaultConfig;
    const bodyLimit = services.config.server?.bodyLimit ?? 10 * 1024 * 1024;
    /** A conditional plan: what its conditions test (x-gateway-metadata and the body) is read first. */
    const conditional = async (ctx: ModelContext, next: () => Promise<void>, plan: NonNullable<ReturnType<RoutingConfigs['planFor']>>): Promise<void> => {
      const metadata = requestMetadata(ctx);
      await ensureJsonBody(ctx, bodyLimit);
      const body = ctx.get(BODY);
      const params = body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
      ctx.set(ROUTING, { plan, conditionInput: { metadata, params } });
      return next();
    };
    const catalogue = services.get(CATALOGUE);
    const apiTeams = services.get(API_TEAMS);
    const byModel = catalogue && catalogue.size > 0 ? catalogueRouter(catalogue, services, bodyLimit, apiTeams) : undefined;
    const decide = (ctx: ModelContext, next: () => Promise<void>): Promise<void> => {
      if (byModel && ctx.has(GATEWAY_KEY) && !headerValue(ctx.headers, 'x-gateway-config') && !ctx.has(PROVIDER) && (routedByModel(ctx) || ctx.has(ROUTED_AS)))
        return byModel(ctx, next);
      const plan = configs.planFor(ctx, defaultName);
      if (!plan) ctx.set(ROUTING, { single: targetFromHeaders(ctx, services) });
      else if (plan.conditional) return conditional(ctx, next, plan);
      else ctx.set(ROUTING, { plan });
      return next();
    };
    // The models a key's team bounds it to, where the admin API keeps the team, are read before
    // anything is decided: the catalogue's choice and the held credentials' checks read them.
    return (ctx, next) => {
      const reading = teamModelsReady(services.config, ctx.get(GATEWAY_KEY), apiTeams);
      return reading ? reading.then(() => decide(ctx, next)) : decide(ctx, next);
    };
  },
});
