/** Counters of one instance. Expired windows are swept as new ones appear. */
export class MemoryRateCounter {
    slots = new Map();
    nextSweep = 0;
    slot(key, ttlMs, now) {
        let slot = this.slots.get(key);
        if (!slot || slot.expiresAt <= now) {
            slot = { requests: 0, tokens: 0, expiresAt: now + ttlMs };
            this.slots.set(key, slot);
        }
        return slot;
    }
    sweep(now) {
        if (now < this.nextSweep)
            return;
        this.nextSweep = now + 10_000;
        for (const [key, slot] of this.slots)
            if (slot.expiresAt <= now)
                this.slots.delete(key);
    }
    async hit(slots) {
        const now = Date.now();
        this.sweep(now);
        return slots.map(({ key, ttlMs }) => {
            const slot = this.slot(key, ttlMs, now);
            slot.requests++;
            return { requests: slot.requests, tokens: slot.tokens };
        });
    }
    async addTokens(slots, tokens) {
        const now = Date.now();
        for (const { key, ttlMs } of slots)
            this.slot(key, ttlMs, now).tokens += tokens;
    }
}
//# sourceMappingURL=memory-counter.js.map