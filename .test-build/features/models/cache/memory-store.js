import { LruMap } from '../../../kernel/lru.js';
/** In-process cache: an LRU of `maxEntries` answers, each dropped when its max_age passes. */
export class MemoryCacheStore {
    entries;
    constructor(maxEntries) {
        this.entries = new LruMap(maxEntries);
    }
    async get(key) {
        const entry = this.entries.get(key);
        if (!entry)
            return undefined;
        if (entry.expiresAt <= Date.now()) {
            this.entries.delete(key);
            return undefined;
        }
        return entry.value;
    }
    async set(key, value, ttlMs) {
        this.entries.set(key, { expiresAt: Date.now() + ttlMs, value });
    }
    get size() {
        return this.entries.size;
    }
}
//# sourceMappingURL=memory-store.js.map