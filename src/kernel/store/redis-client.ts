import type { Redis, RedisOptions } from 'ioredis';
import { defineService, type GatewayServices } from '../engine/services.js';

/** How the gateway's Redis clients behave: commands fail fast while disconnected. */
export const REDIS_CLIENT_OPTIONS: RedisOptions = {
  lazyConnect: true,
  enableOfflineQueue: false,
  maxRetriesPerRequest: 1,
  commandTimeout: 1000,
  connectTimeout: 2000,
};

const REDIS_CLASS = defineService<new (url: string, options: RedisOptions) => Redis>('redis-class');
const REDIS_CLIENT = defineService<Redis>('redis-client');

/** redis.keyPrefix (default `gw:`): every key the gateway keeps in Redis starts with it. */
export function redisKeyPrefix(services: GatewayServices): string {
  return services.config.redis?.keyPrefix ?? 'gw:';
}

/** Loads the Redis client library, only for configs that name a Redis (it is not small). */
export async function loadRedisClient(services: GatewayServices): Promise<void> {
  if (!services.config.redis?.url || services.has(REDIS_CLASS)) return;
  services.provide(REDIS_CLASS, (await import('ioredis')).Redis);
}

/** Whether loadRedisClient() has run for a config that names a Redis. */
export function redisClientLoaded(services: GatewayServices): boolean {
  return services.has(REDIS_CLASS);
}

/**
 * The gateway's one Redis client (redis.url), closed at shutdown: one connection kept under the
 * resource key `redis` (every feature asking for it gets the same client), commands failing fast
 * while disconnected (no offline queue, one retry, 1 s command timeout). Undefined without
 * redis.url; loadRedisClient() must have run first.
 */
export function sharedRedis(services: GatewayServices): Redis | undefined {
  const url = services.config.redis?.url;
  if (!url) return undefined;
  const RedisClient = services.get(REDIS_CLASS);
  if (!RedisClient) throw new Error('loadRedisClient() must run before sharedRedis()');
  return services.once(REDIS_CLIENT, () =>
    services.resources.keep(
      'redis',
      url,
      () => {
        const client = new RedisClient(url, { ...REDIS_CLIENT_OPTIONS });
        let lastWarning = 0;
        client.on('error', (err: Error) => {
          const now = Date.now();
          if (now - lastWarning < 10_000) return;
          lastWarning = now;
          services.logger.warn({ err: (err as { code?: string }).code ?? 'redis error' }, 'redis unavailable');
        });
        client.connect().catch(() => undefined);
        return client;
      },
      async (client) => {
        await client.quit().catch(() => client.disconnect());
      },
    ),
  );
}

/** The shared client (sharedRedis), loading the client library first when needed. */
export async function kernelRedis(services: GatewayServices): Promise<Redis | undefined> {
  await loadRedisClient(services);
  return sharedRedis(services);
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
