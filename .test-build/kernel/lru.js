/** A small least-recently-used map: reading an entry makes it the newest; past `max`, the oldest goes. */
export class LruMap {
    max;
    onEvict;
    map = new Map();
    constructor(max, onEvict) {
        this.max = max;
        this.onEvict = onEvict;
    }
    get(key) {
        const value = this.map.get(key);
        if (value === undefined)
            return undefined;
        this.map.delete(key);
        this.map.set(key, value);
        return value;
    }
    set(key, value) {
        if (this.map.has(key))
            this.map.delete(key);
        this.map.set(key, value);
        while (this.map.size > this.max) {
            const oldest = this.map.keys().next().value;
            const evicted = this.map.get(oldest);
            this.map.delete(oldest);
            this.onEvict?.(oldest, evicted);
        }
    }
    delete(key) {
        this.map.delete(key);
    }
    get size() {
        return this.map.size;
    }
    values() {
        return this.map.values();
    }
    clear() {
        this.map.clear();
    }
}
//# sourceMappingURL=lru.js.map