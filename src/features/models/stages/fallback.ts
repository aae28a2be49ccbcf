import type { FallbackStageConfig } from '../../../generated/stages/fallback.js';
import { schemaDocument } from '../../../kernel/config/schema-validator.js';
import { RETRIES, UPSTREAM } from '../../../kernel/engine/report.js';
import { defineStage } from '../../../kernel/engine/stage.js';
import { ATTEMPTS, ROUTING, TARGET, type ModelContext, DEADLINE, PROVIDER, PROVIDER_KEY } from '../model-request.js';
import { PROVIDERS } from '../providers/provider-registry.js';
import { PlanRunner } from '../routing/plan-runner.js';
import { breakerRegistry } from '../routing/resilience-services.js';
import { PARENT_SPAN } from '../../../kernel/engine/tracing.js';
import { RESPONSE } from '../../../kernel/engine/context.js';

/**
 * Runs the route stage's decision: the strategy of each group of targets (single, fallback,
 * loadbalance, conditional), circuit breakers and deadlines, calling the rest of the pipeline
 * (guardrail, cache, retry, forward) once per target attempt with the TARGET slot set. Every
 * answer of its pipelines carries x-gateway-provider (the provider that answered, the one an
 * error names, or for a request refused before routing the known provider it named),
 * x-gateway-retry-count and, with a routing config, x-gateway-target-index; error.debug lists
 * the attempts.
 */
export default defineStage<FallbackStageConfig, ModelContext>({
  name: 'fallback',
  description: 'Runs the routing strategy (fallback, loadbalance, conditional) with circuit breakers and deadlines, once per target attempt.',
  schema: schemaDocument('stages/fallback.schema.json'),
  requires: [ROUTING],
  provides: [TARGET],
  once: true,
  repeats: true,
  reads: [ATTEMPTS, RETRIES, PROVIDER, PROVIDER_KEY, DEADLINE, PARENT_SPAN],
  writes: [ATTEMPTS, DEADLINE, PARENT_SPAN, UPSTREAM, RESPONSE],
  create(_config, services) {
    const providers = services.require(PROVIDERS);
    const runner = new PlanRunner(services, breakerRegistry(services), providers);
    return {
      run: (ctx, next) => {
        const decision = ctx.get(ROUTING)!;
        return decision.plan ? runner.run(ctx, decision.plan, decision.conditionInput, next) : runner.runSingle(ctx, decision.single, next);
      },
      decorate(ctx, headers) {
        headers['x-gateway-retry-count'] = String(ctx.get(RETRIES) ?? 0);
        const target = ctx.get(TARGET);
        // A request refused before routing (validation, limits) names the known provider it asked for.
        const named = target || ctx.error?.provider ? undefined : ctx.get(PROVIDER);
        const provider = target?.provider ?? ctx.error?.provider ?? (named !== undefined && providers.has(named) ? named : undefined);
        if (provider) headers['x-gateway-provider'] = provider;
        if (target?.index !== undefined) headers['x-gateway-target-index'] = target.index;
      },
      debug: (ctx) => ({ attempts: ctx.get(ATTEMPTS) ?? [] }),
    };
  },
});
