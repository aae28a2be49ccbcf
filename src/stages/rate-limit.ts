import { defineStage } from '../engine/stage.js';
import type { GatewayContext } from '../engine/context.js';
import type { StreamPart } from '../protocol/stream-parts.js';
import type { CounterSlot } from '../rate-limit/counter.js';
import { TOKEN_SLOTS, type RateLimiter } from '../rate-limit/limiter.js';
import { noteStreamUsage, usedTokens } from '../rate-limit/usage.js';
import { rateLimiter } from '../routing/resilience-services.js';
import { CACHE_STATUS } from './cache.js';

async function* chargeAtEnd(parts: AsyncIterable<StreamPart>, ctx: GatewayContext, limiter: RateLimiter, slots: CounterSlot[]): AsyncGenerator<StreamPart> {
  try {
    yield* noteStreamUsage(parts, ctx);
  } finally {
    const tokens = usedTokens(ctx);
    if (tokens > 0) void limiter.charge(slots, tokens);
  }
}

/**
 * Gateway rate limits (`rateLimits` in the gateway config): counts the request in every rule
 * that covers it, sets X-RateLimit-Limit / -Remaining / -Reset, refuses with 429 and
 * Retry-After past a limit. Token budgets are charged from the answer's usage (JSON `usage`,
 * or a stream's usage part) once the answer is known; answers served from the cache are not
 * charged. Put it before validate so error answers carry the headers too.
 */
export default defineStage<Record<string, never>>({
  name: 'rate-limit',
  description: 'Applies the gateway rate limits (requests and tokens per window).',
  schema: { type: 'object', additionalProperties: false },
  create(_config, services) {
    const limiter = rateLimiter(services);
    return async (ctx, next) => {
      if (!limiter) return next();
      await limiter.check(ctx);
      const slots = ctx.state[TOKEN_SLOTS] as CounterSlot[] | undefined;
      if (!slots) return next();
      await next();
      if (ctx.responseHeaders[CACHE_STATUS] === 'HIT') return;
      const response = ctx.response;
      if (response?.kind === 'stream') response.parts = chargeAtEnd(response.parts, ctx, limiter, slots);
      else {
        const tokens = usedTokens(ctx);
        if (tokens > 0) void limiter.charge(slots, tokens);
      }
    };
  },
});
