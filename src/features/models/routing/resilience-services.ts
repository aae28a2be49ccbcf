import type { Redis } from 'ioredis';
import { defineService, type GatewayServices } from '../../../kernel/engine/services.js';
import { redisClientLoaded, redisKeyPrefix, sharedRedis } from '../../../kernel/store/redis-client.js';
import { guardrailRegistry } from '../../guardrails/index.js';
import type { CacheStore } from '../cache/cache-store.js';
import { MemoryCacheStore } from '../cache/memory-store.js';
import { RedisCacheStore } from '../cache/redis-store.js';
import { RateLimiter } from '../rate-limit/limiter.js';
import { MemoryRateCounter } from '../rate-limit/memory-counter.js';
import { RedisRateCounter } from '../rate-limit/redis-counter.js';
import { ClusterRateCounter } from '../rate-limit/cluster-counter.js';
import { ClusterCacheStore } from '../cache/cluster-store.js';
import { primaryChannel } from '../../../kernel/cluster/primary-channel.js';
import { PROVIDERS } from '../providers/provider-registry.js';
import { BreakerRegistry } from './breakers.js';
import { clusterCircuitSync, redisCircuitSync, type CircuitSync } from './circuit-sync.js';
import { modelCounters } from '../metrics/model-metrics.js';
import { RoutingConfigs } from './config-source.js';
import type { PlanEnvironment } from './compile-plan.js';
import { HELD_CREDENTIALS } from './held-credentials.js';

/**
 * The long-lived parts of routing and resilience, each made once per gateway (on first use,
 * by the routing capability at start-up or by a stage factory) and kept in typed service
 * slots: the answer cache, the rate limiter, circuit
 * breakers and the compiled named routing configs.
 */
export const RESPONSE_CACHE = defineService<CacheStore>('response-cache');
export const RATE_LIMITER = defineService<RateLimiter>('rate-limiter');
export const BREAKERS = defineService<BreakerRegistry>('circuit-breakers');
export const ROUTING_CONFIGS = defineService<RoutingConfigs>('routing-configs');

/** Whether this config keeps anything in Redis (cache.store redis, or rate limits or circuit breakers with redis.url). */
export function usesRedis(services: GatewayServices): boolean {
  const config = services.config;
  return Boolean(config.redis?.url) && (config.cache?.store === 'redis' || Boolean(config.rateLimits?.length) || Boolean(config.routing?.circuitBreaker));
}

export function responseCache(services: GatewayServices): CacheStore {
  return services.once(RESPONSE_CACHE, () => {
    const config = services.config;
    const redis = config.cache?.store === 'redis' ? sharedRedis(services) : undefined;
    // Cached answers survive a reload that leaves the cache settings as they were.
    const settings = { cache: config.cache, redis: redis ? config.redis : undefined };
    return services.resources.keep('response-cache', settings, () =>
      redis
        ? new RedisCacheStore(redis, redisKeyPrefix(services))
        : primaryChannel()
          ? new ClusterCacheStore(primaryChannel()!)
          : new MemoryCacheStore(config.cache?.maxEntries ?? 10_000),
    );
  });
}

export function rateLimiter(services: GatewayServices): RateLimiter | undefined {
  const rules = services.config.rateLimits;
  if (!rules?.length) return undefined;
  return services.once(RATE_LIMITER, () => {
    const redis = sharedRedis(services);
    // Counters survive a reload that leaves the limits as they were.
    return services.resources.keep('rate-limiter', { rules, redis: redis ? services.config.redis : undefined }, () => {
      // Without Redis, the workers of a cluster count at the primary (one set of limits for all).
      const channel = primaryChannel();
      const counter = redis ? new RedisRateCounter(redis, redisKeyPrefix(services)) : channel ? new ClusterRateCounter(channel) : new MemoryRateCounter();
      const refused = modelCounters(services.metrics).rateLimited;
      return new RateLimiter(rules, counter, services.logger, (scope) => refused.inc([scope]));
    });
  });
}

/** How circuit states reach the gateway's other processes: over Redis when it has one, else between the workers of a cluster. */
function circuitSync(services: GatewayServices, redis: Redis | undefined): CircuitSync | undefined {
  if (redis) return redisCircuitSync(redis, redisKeyPrefix(services), services.logger);
  const channel = primaryChannel();
  return channel ? clusterCircuitSync(channel) : undefined;
}

const CIRCUIT_VALUE = { closed: 0, open: 1, 'half-open': 2 } as const;
/** Which state a gauge sample shows when several circuits share a label: open, then half-open, then closed. */
const CIRCUIT_RANK = { closed: 0, 'half-open': 1, open: 2 } as const;

/** One sample per circuit label (provider, target): the most severe state of the circuits that carry it. */
function* circuitSamples(registry: BreakerRegistry): Iterable<{ labels: Record<string, string>; value: number }> {
  const worst = new Map<string, { labels: Record<string, string>; state: keyof typeof CIRCUIT_VALUE }>();
  for (const { label, state } of registry.states()) {
    const id = `${label.provider}\n${label.target}`;
    const seen = worst.get(id);
    if (!seen) worst.set(id, { labels: { provider: label.provider, target: label.target }, state });
    else if (CIRCUIT_RANK[state] > CIRCUIT_RANK[seen.state]) seen.state = state;
  }
  for (const { labels, state } of worst.values()) yield { labels, value: CIRCUIT_VALUE[state] };
}

export function breakerRegistry(services: GatewayServices): BreakerRegistry | undefined {
  const config = services.config.routing?.circuitBreaker;
  if (!config) return undefined;
  // Circuit states survive a reload that leaves routing.circuitBreaker as it was.
  return services.once(BREAKERS, () => {
    const redis = redisClientLoaded(services) ? sharedRedis(services) : undefined;
    const registry = services.resources.keep(
      'circuit-breakers',
      { config, redis: redis ? services.config.redis : undefined },
      () => new BreakerRegistry(config, circuitSync(services, redis)),
      (r) => r.close(),
    );
    // Each change made here is a warning line (those told by another process are logged there).
    const logger = services.logger;
    registry.onChange = (event) =>
      logger.warn({ circuit: event.state, provider: event.provider, target: event.target, status: event.status, reason: event.reason }, `circuit ${event.state}`);
    // Read when /metrics is scraped: 0 closed, 1 open, 2 half-open, per provider and target.
    services.metrics.scrapedGauge(
      'gateway_circuit_state',
      'Circuit breaker state by provider and target (the config target that first used it): 0 closed, 1 open, 2 half-open.',
      () => circuitSamples(registry),
    );
    return registry;
  });
}

/** What compiling a routing config needs to know of this gateway: providers, guardrails, operator headers, held credentials. */
export function planEnvironment(services: GatewayServices): PlanEnvironment {
  const providers = services.require(PROVIDERS);
  const operatorHeaders = new Set<string>();
  for (const settings of Object.values(services.config.providers ?? {})) {
    for (const name of Object.keys((settings as { headers?: Record<string, string> } | undefined)?.headers ?? {})) operatorHeaders.add(name.toLowerCase());
  }
  return {
    hasProvider: (id) => providers.has(id),
    providerIds: () => providers.ids(),
    allowCustomHost: services.config.routing?.allowCustomHost === true,
    hasGuardrail: (id) => guardrailRegistry(services).has(id),
    operatorHeaders,
    credentialProvider: (name) => services.get(HELD_CREDENTIALS)?.get(name)?.provider,
  };
}

/** Named routing configs compiled against the providers and guardrails this gateway has. */
export function routingConfigs(services: GatewayServices): RoutingConfigs {
  return services.once(ROUTING_CONFIGS, () => new RoutingConfigs(services.config, planEnvironment(services)));
}
