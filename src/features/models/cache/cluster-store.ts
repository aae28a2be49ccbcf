import type { PrimaryChannel } from '../../../kernel/cluster/primary-channel.js';
import type { CacheStore, CachedAnswer } from './cache-store.js';

/** The answer cache held by the primary of a cluster, so a request cached by one worker is a hit on every worker. */
export class ClusterCacheStore implements CacheStore {
  constructor(private readonly channel: PrimaryChannel) {}

  get(key: string): Promise<CachedAnswer | undefined> {
    return this.channel.call<CachedAnswer | undefined>('cache', 'get', [key]).then((v) => v ?? undefined);
  }

  set(key: string, value: CachedAnswer, ttlMs: number): Promise<void> {
    return this.channel.call<void>('cache', 'set', [key, value, ttlMs]);
  }
}
