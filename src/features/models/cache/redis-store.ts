import type { Redis } from 'ioredis';
import type { CacheStore, CachedAnswer } from './cache-store.js';

/** Cache shared by every instance on one Redis: `<prefix>cache:<key>` holds the answer as JSON, expiring with max_age. */
export class RedisCacheStore implements CacheStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  async get(key: string): Promise<CachedAnswer | undefined> {
    const text = await this.redis.get(`${this.prefix}cache:${key}`);
    if (!text) return undefined;
    try {
      return JSON.parse(text) as CachedAnswer;
    } catch {
      return undefined;
    }
  }

  async set(key: string, value: CachedAnswer, ttlMs: number): Promise<void> {
    await this.redis.set(`${this.prefix}cache:${key}`, JSON.stringify(value), 'PX', Math.max(1, Math.round(ttlMs)));
  }
}
