import type { Capability } from '../capability.js';
import { ConfigError } from '../config/load-config.js';
import { GuardrailConfigError } from '../guardrails/registry.js';
import { breakerRegistry, guardrailRegistry, loadRedisClient, rateLimiter, redisReady, responseCache, sharedRedis, usesRedis } from './resilience-services.js';

/**
 * Routing and resilience: checks guardrails at start-up, connects the shared Redis client
 * (rate-limit counters and the cache, when configured) and makes the limiter, cache and
 * circuit breakers. Stages (route, retry, cache, guardrail, rate-limit) are built-in stages.
 */
export const routingCapability: Capability = {
  name: 'routing',
  async setup(services) {
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
