import { LruMap } from '../../../kernel/lru.js';
import type { CacheStore, CachedAnswer } from './cache-store.js';

/** In-process cache: an LRU of `maxEntries` answers, each dropped when its max_age passes. */
export class MemoryCacheStore implements CacheStore {
  private readonly entries: LruMap<string, { expiresAt: number; value: CachedAnswer }>;

  constructor(maxEntries: number) {
    this.entries = new LruMap(maxEntries);
  }

  async get(key: string): Promise<CachedAnswer | undefined> {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= Date.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  async set(key: string, value: CachedAnswer, ttlMs: number): Promise<void> {
    this.entries.set(key, { expiresAt: Date.now() + ttlMs, value });
  }

  get size(): number {
    return this.entries.size;
  }
}
