import type { Capability } from '../../../kernel/capability.js';
import { ConfigError } from '../../../kernel/config/load-config.js';
import { GuardrailConfigError } from '../guardrails/registry.js';
import { createCheckRegistry, GUARDRAIL_CHECKS } from '../guardrails/check-kind.js';
import { BUILTIN_CHECKS } from '../guardrails/checks/builtin-checks.js';
import { BUILTIN_PROVIDERS } from '../providers/builtin-providers.js';
import { ProviderRegistry, PROVIDERS } from '../providers/provider-registry.js';
import { registerModelMetrics } from '../metrics/model-metrics.js';
import { registerModelLabels } from '../metrics/model-labels.js';
import { breakerRegistry, guardrailRegistry, loadRedisClient, rateLimiter, redisReady, responseCache, sharedRedis, usesRedis } from './resilience-services.js';

/**
 * Model routing and resilience: the extension kinds `provider` and `guardrail-check` with
 * their built-ins; once plugins are loaded, the providers (providers.<id>) and guardrails
 * (guardrails.<id>) are made and checked, the shared Redis client connected (rate-limit
 * counters and the cache, when configured), and the limiter, cache and circuit breakers made.
 * Its stages (route, fallback, retry, cache, guardrail, rate-limit, forward) are built-in stages.
 */
export const routingCapability: Capability = {
  name: 'routing',
  setup(services) {
    const providers = services.provide(PROVIDERS, new ProviderRegistry());
    services.kinds.add(providers.definitions);
    for (const provider of BUILTIN_PROVIDERS) providers.register(provider);
    const checks = services.provide(GUARDRAIL_CHECKS, services.kinds.add(createCheckRegistry()));
    for (const check of BUILTIN_CHECKS) checks.register(check);
    registerModelMetrics(services);
  },
  async prepare(services) {
    const problems = services.require(PROVIDERS).instantiate(services.config);
    if (problems.length) throw new ConfigError(problems, 'providers');
    registerModelLabels(services.labels, services.config, services.require(PROVIDERS).ids());
    try {
      guardrailRegistry(services);
    } catch (err) {
      if (err instanceof GuardrailConfigError) throw new ConfigError(err.problems, 'guardrails');
      throw err;
    }
    await loadRedisClient(services);
    if (usesRedis(services)) {
      const client = sharedRedis(services)!;
      if (!(await redisReady(client, 3000))) {
        services.logger.warn('redis is not reachable yet: rate limits pass uncounted and the cache misses until it is');
      }
    }
    rateLimiter(services);
    responseCache(services);
    breakerRegistry(services);
  },
};
