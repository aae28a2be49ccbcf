/** Cache shared by every instance on one Redis: `<prefix>cache:<key>` holds the answer as JSON, expiring with max_age. */
export class RedisCacheStore {
    redis;
    prefix;
    constructor(redis, prefix) {
        this.redis = redis;
        this.prefix = prefix;
    }
    async get(key) {
        const text = await this.redis.get(`${this.prefix}cache:${key}`);
        if (!text)
            return undefined;
        try {
            return JSON.parse(text);
        }
        catch {
            return undefined;
        }
    }
    async set(key, value, ttlMs) {
        await this.redis.set(`${this.prefix}cache:${key}`, JSON.stringify(value), 'PX', Math.max(1, Math.round(ttlMs)));
    }
}
//# sourceMappingURL=redis-store.js.map