import { schemaDocument } from '../kernel/config/schema-validator.js';
import { CALLER } from '../kernel/engine/report.js';
import { defineStage } from '../kernel/engine/stage.js';
import { TOKEN_SLOTS } from '../features/models/rate-limit/limiter.js';
import { noteStreamUsage, usedTokens } from '../features/models/rate-limit/usage.js';
import { rateLimiter } from '../features/models/routing/resilience-services.js';
import { CACHE_STATUS } from './cache.js';
async function* chargeAtEnd(parts, ctx, limiter, slots) {
    try {
        yield* noteStreamUsage(parts, ctx);
    }
    finally {
        const tokens = usedTokens(ctx);
        if (tokens > 0)
            void limiter.charge(slots, tokens);
    }
}
/**
 * Gateway rate limits (`rateLimits` in the gateway config): counts the request in every rule
 * that covers it, sets X-RateLimit-Limit / -Remaining / -Reset, refuses with 429 and
 * Retry-After past a limit. Token budgets are charged from the answer's usage (JSON `usage`,
 * or a stream's usage part) once the answer is known; answers served from the cache are not
 * charged. Put it before validate so error answers carry the headers too. Without rules the
 * stage is left out of the pipeline.
 */
export default defineStage({
    name: 'rate-limit',
    description: 'Applies the gateway rate limits (requests and tokens per window).',
    schema: schemaDocument('stages/rate-limit.schema.json'),
    requires: [CALLER],
    once: true,
    create(config, services) {
        const limiter = rateLimiter(services);
        if (!limiter)
            return null;
        const defaultRules = config.defaultRules !== false;
        return async (ctx, next) => {
            await limiter.check(ctx, defaultRules);
            const slots = ctx.get(TOKEN_SLOTS);
            if (!slots)
                return next();
            await next();
            if (ctx.responseHeaders[CACHE_STATUS] === 'HIT')
                return;
            const response = ctx.response;
            if (response?.kind === 'stream')
                response.parts = chargeAtEnd(response.parts, ctx, limiter, slots);
            else {
                const tokens = usedTokens(ctx);
                if (tokens > 0)
                    void limiter.charge(slots, tokens);
            }
        };
    },
});
//# sourceMappingURL=rate-limit.js.map