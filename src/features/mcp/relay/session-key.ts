import { randomBytes } from 'node:crypto';
import type { GatewayServices } from '../../../kernel/engine/services.js';
import { getStore } from '../../../kernel/store/store-capability.js';
import { loadRedisClient, redisKeyPrefix, redisReady, sharedRedis } from '../../models/routing/resilience-services.js';

const KEY_NAME = 'mcp-session-key';

/**
 * The key that seals relayed MCP session ids. Every instance must hold the same one: with a
 * `redis.url` it lives in Redis, with `storage.type: postgres` in the store (the first instance
 * to start creates it; the others read it). With neither, sessions live on one instance and a
 * key of its own will do.
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
    services.logger.warn({}, 'redis unavailable at start-up: MCP sessions are served by this instance only');
  }
  const store = getStore(services);
  if (store.dialect === 'postgres') {
    await store.migrate([{ id: 'mcp-001-keys', statements: ['CREATE TABLE IF NOT EXISTS gateway_mcp_keys (name TEXT PRIMARY KEY, value TEXT NOT NULL)'] }]);
    await store.execute('INSERT INTO gateway_mcp_keys (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING', [KEY_NAME, fresh]);
    const rows = await store.query<{ value: string }>('SELECT value FROM gateway_mcp_keys WHERE name = ?', [KEY_NAME]);
    if (rows[0]) return Buffer.from(rows[0].value, 'base64');
  }
  return Buffer.from(fresh, 'base64');
}
