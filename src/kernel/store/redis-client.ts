import type { Redis, RedisOptions } from 'ioredis';
import type { GatewayServices } from '../engine/services.js';

/** How the gateway's Redis clients behave: commands fail fast while disconnected. */
export const REDIS_CLIENT_OPTIONS: RedisOptions = {
  lazyConnect: true,
  enableOfflineQueue: false,
  maxRetriesPerRequest: 1,
  commandTimeout: 1000,
  connectTimeout: 2000,
};

/**
 * The gateway's Redis client (redis.url), built as the routing feature builds its own: one
 * connection kept under the resource key `redis` (so a feature asking for it in the same
 * generation gets the same client), commands failing fast while disconnected (no offline
 * queue, one retry, 1 s command timeout). The client library is loaded on first use.
 */
export async function kernelRedis(services: GatewayServices): Promise<Redis | undefined> {
  const url = services.config.redis?.url;
  if (!url) return undefined;
  const { Redis: RedisClient } = (await import('ioredis')) as { Redis: new (url: string, options: RedisOptions) => Redis };
  return services.resources.keep(
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
  );
}

/** redis.keyPrefix (default `gw:`). */
export function kernelRedisPrefix(services: GatewayServices): string {
  return services.config.redis?.keyPrefix ?? 'gw:';
}

/** Waits until the client is connected (or `ms` passed); false when it did not connect. */
export function whenRedisReady(client: Redis, ms: number): Promise<boolean> {
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
