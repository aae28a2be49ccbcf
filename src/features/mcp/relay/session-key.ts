import { randomBytes } from 'node:crypto';
import type { GatewayServices } from '../../../kernel/engine/services.js';
import { getStore } from '../../../kernel/store/store-capability.js';
import { loadRedisClient, redisKeyPrefix, redisReady, sharedRedis } from '../../../kernel/store/redis-client.js';

const KEY_NAME = 'mcp-session-key';

/**
 * The key that seals relayed MCP session ids. Every process serving the gateway must hold the
 * same one: with a `redis.url` it lives in Redis, otherwise in the store (the first process to
 * start creates it; the others read it): PostgreSQL for instances, and the SQLite file the
 * workers of a cluster share. Kept there, it also outlives a restart, so sessions do too.
 */
export async function sharedSessionKey(services: GatewayServices): Promise<Buffer> {
  const fresh = randomBytes(32).toString('base64');
  if (services.config.redis?.url) {
    await loadRedisClient(services);
    const redis = sharedRedis(services)!;
    if (await redisReady(redis, 3000)) {
      const name = `${redisKeyPrefix(services)}${KEY_NAME}`;
      await redis.set(name, fresh, 'NX');
      const value = await redis.get(name);
      if (value) return Buffer.from(value, 'base64');
    }
    services.logger.warn({}, 'redis unavailable at start-up: MCP sessions are served only by the processes sharing this store');
  }
  const store = getStore(services);
  await store.migrate([{ id: 'mcp-001-keys', statements: ['CREATE TABLE IF NOT EXISTS gateway_mcp_keys (name TEXT PRIMARY KEY, value TEXT NOT NULL)'] }]);
  await store.execute('INSERT INTO gateway_mcp_keys (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING', [KEY_NAME, fresh]);
  const rows = await store.query<{ value: string }>('SELECT value FROM gateway_mcp_keys WHERE name = ?', [KEY_NAME]);
  return Buffer.from(rows[0]?.value ?? fresh, 'base64');
}
