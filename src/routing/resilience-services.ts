import type { Redis, RedisOptions } from 'ioredis';
import type { GatewayServices } from '../engine/services.js';
import { GuardrailRegistry } from '../guardrails/registry.js';
import type { CacheStore } from '../cache/cache-store.js';
import { MemoryCacheStore } from '../cache/memory-store.js';
import { RedisCacheStore } from '../cache/redis-store.js';
import { RateLimiter } from '../rate-limit/limiter.js';
import { MemoryRateCounter } from '../rate-limit/memory-counter.js';
import { RedisRateCounter } from '../rate-limit/redis-counter.js';
import { BreakerRegistry } from './breakers.js';
import { RoutingConfigs } from './config-source.js';

/**
 * The long-lived parts of routing and resilience, each made once per gateway (on first use,
 * by the routing capability at start-up or by a stage factory) and kept in
 * services.extensions: the shared Redis client, guardrails, the answer cache, the rate
 * limiter, circuit breakers and the compiled named routing configs.
 */
function once<T>(services: GatewayServices, name: string, make: () => T): T {
  if (services.extensions.has(name)) return services.extensions.get(name) as T;
  const value = make();
  services.extensions.set(name, value);
  return value;
}

export function redisKeyPrefix(services: GatewayServices): string {
  return services.config.redis?.keyPrefix ?? 'gw:';
}

/** Whether this config keeps anything in Redis (cache.store redis, or rate limits with redis.url). */
export function usesRedis(services: GatewayServices): boolean {
  const config = services.config;
  return Boolean(config.redis?.url) && (config.cache?.store === 'redis' || Boolean(config.rateLimits?.length));
}

const REDIS_CLASS = 'redis-class';

/** Loads the Redis client library, only for configs that name a Redis (it is not small). */
export async function loadRedisClient(services: GatewayServices): Promise<void> {
  if (!services.config.redis?.url || services.extensions.has(REDIS_CLASS)) return;
  services.extensions.set(REDIS_CLASS, (await import('ioredis')).Redis);
}

/** One Redis client per gateway, closed at shutdown. Commands fail fast while it is disconnected. */
export function sharedRedis(services: GatewayServices): Redis | undefined {
  const url = services.config.redis?.url;
  if (!url) return undefined;
  const RedisClient = services.extensions.get(REDIS_CLASS) as (new (url: string, options: RedisOptions) => Redis) | undefined;
  if (!RedisClient) throw new Error('loadRedisClient() must run before sharedRedis()');
  return once(services, 'redis-client', () => {
    const client = new RedisClient(url, {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      commandTimeout: 1000,
      connectTimeout: 2000,
    });
    let lastWarning = 0;
    client.on('error', (err: Error) => {
      const now = Date.now();
      if (now - lastWarning < 10_000) return;
      lastWarning = now;
      services.logger.warn({ err: (err as { code?: string }).code ?? 'redis error' }, 'redis unavailable');
    });
    client.connect().catch(() => undefined);
    services.closers.push(async () => {
      await client.quit().catch(() => client.disconnect());
    });
    return client;
  });
}

/** Waits until the client is connected (or `ms` passed); false when it did not connect. */
export function redisReady(client: Redis, ms: number): Promise<boolean> {
  if (client.status === 'ready') return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      clearTimeout(timer);
      client.off('ready', onReady);
      resolve(ok);
    };
    const onReady = () => done(true);
    const timer = setTimeout(() => done(false), ms);
    client.on('ready', onReady);
  });
}

export function guardrailRegistry(services: GatewayServices): GuardrailRegistry {
  return once(services, 'guardrails', () => new GuardrailRegistry(services.config, () => services.upstream));
}

export function responseCache(services: GatewayServices): CacheStore {
  return once(services, 'response-cache', () => {
    const config = services.config;
    const redis = config.cache?.store === 'redis' ? sharedRedis(services) : undefined;
    return redis ? new RedisCacheStore(redis, redisKeyPrefix(services)) : new MemoryCacheStore(config.cache?.maxEntries ?? 10_000);
  });
}

export function rateLimiter(services: GatewayServices): RateLimiter | undefined {
  const rules = services.config.rateLimits;
  if (!rules?.length) return undefined;
  return once(services, 'rate-limiter', () => {
    const redis = sharedRedis(services);
    const counter = redis ? new RedisRateCounter(redis, redisKeyPrefix(services)) : new MemoryRateCounter();
    return new RateLimiter(rules, counter, services.logger);
  });
}

export function breakerRegistry(services: GatewayServices): BreakerRegistry | undefined {
  const config = services.config.routing?.circuitBreaker;
  if (!config) return undefined;
  return once(services, 'circuit-breakers', () => {
    const registry = new BreakerRegistry(config);
    services.closers.push(() => registry.close());
    return registry;
  });
}

/** Named routing configs compiled against the providers and guardrails this gateway has. */
export function routingConfigs(services: GatewayServices): RoutingConfigs {
  return once(
    services,
    'routing-configs',
    () =>
      new RoutingConfigs(services.config, {
        hasProvider: (id) => services.providers.has(id),
        providerIds: () => services.providers.ids(),
        allowCustomHost: services.config.routing?.allowCustomHost === true,
        hasGuardrail: (id) => guardrailRegistry(services).has(id),
      }),
  );
}
