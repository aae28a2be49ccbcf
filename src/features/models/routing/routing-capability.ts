import type { Capability } from '../../../kernel/capability.js';
import { ConfigError } from '../../../kernel/config/load-config.js';
import { BUILTIN_PROVIDERS } from '../providers/builtin-providers.js';
import { ProviderRegistry, PROVIDERS } from '../providers/provider-registry.js';
import { registerModelMetrics } from '../metrics/model-metrics.js';
import { registerModelLabels } from '../metrics/model-labels.js';
import { loadRedisClient, redisReady, sharedRedis } from '../../../kernel/store/redis-client.js';
import { breakerRegistry, rateLimiter, responseCache, usesRedis } from './resilience-services.js';
import { errorShapes } from '../../../kernel/engine/error-shapes.js';
import { anthropicErrorShape } from '../messages/anthropic-error.js';

/**
 * Model routing and resilience: the extension kind `provider` with its built-ins; once
 * plugins are loaded, the providers (providers.<id>) are made and checked, the shared Redis client connected (rate-limit
 * counters and the cache, when configured), and the limiter, cache and circuit breakers made.
 * Its routes' errors take Anthropic's shape on /v1/messages (the error shape it registers).
 * Its own stages (models/stages/: resource-shapes, fallback, cache, retry, forward) are built-in
 * stages, as are those it shares with other features (src/stages: route, guardrail, rate-limit).
 */
export const routingCapability: Capability = {
  name: 'routing',
  setup(services) {
    const providers = services.provide(PROVIDERS, new ProviderRegistry());
    services.kinds.add(providers.definitions);
    for (const provider of BUILTIN_PROVIDERS) providers.register(provider);
    registerModelMetrics(services);
    errorShapes(services).add(anthropicErrorShape);
  },
  async prepare(services) {
    const problems = services.require(PROVIDERS).instantiate(services.config);
    if (problems.length) throw new ConfigError(problems, 'providers');
    registerModelLabels(services.labels, services.config, services.require(PROVIDERS).ids());
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
