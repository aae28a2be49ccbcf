import type { KeyLimitsStageConfig } from '../../../generated/stages/key-limits.js';
import { schemaDocument } from '../../../kernel/config/schema-validator.js';
import type { GatewayContext } from '../../../kernel/engine/context.js';
import { defineService, type GatewayServices } from '../../../kernel/engine/services.js';
import { defineStage } from '../../../kernel/engine/stage.js';
import { GatewayError } from '../../../contract/errors/gateway-error.js';
import type { StreamPart } from '../../../contract/stream-parts.js';
import { BATCH_LINE, type RateCounter, MemoryRateCounter, RedisRateCounter, failedRequestTokens, noteStreamUsage, usedTokens, USAGE } from '../../models/index.js';
import { redisKeyPrefix, sharedRedis } from '../../../kernel/store/redis-client.js';
import { GATEWAY_KEY } from '../governance-slots.js';
import type { GatewayKey } from '../governance-types.js';
import { getStore } from '../../../kernel/store/store-capability.js';
import { RedisParallelSlots, type ParallelSlots } from './parallel-slots.js';
import { SqlParallelSlots } from './sql-parallel-slots.js';
import { RESPONSE } from '../../../kernel/engine/context.js';

/**
 * Slots of maxParallel, where the budgets are: in Redis with redis.url, else in the SQL store
 * (PostgreSQL shared by instances; SQLite shared by one instance's workers).
 */
export const PARALLEL_SLOTS = defineService<ParallelSlots>('key-parallel-slots');
const KEY_COUNTER = defineService<RateCounter>('key-rate-counter');

const MINUTE = 60_000;

function parallelSlots(services: GatewayServices): ParallelSlots {
  return services.once(PARALLEL_SLOTS, () => {
    const redis = sharedRedis(services);
    const settings = { redis: redis ? services.config.redis : undefined, storage: redis ? undefined : services.config.storage };
    return services.resources.keep(
      'key-parallel-slots',
      settings,
      () => (redis ? new RedisParallelSlots(redis, redisKeyPrefix(services)) : new SqlParallelSlots(getStore(services))),
      (slots) => {
        if (slots instanceof SqlParallelSlots) slots.close();
      },
    );
  });
}

function keyCounter(services: GatewayServices): RateCounter {
  return services.once(KEY_COUNTER, () => {
    const redis = sharedRedis(services);
    return services.resources.keep('key-rate-counter', { redis: redis ? services.config.redis : undefined }, () =>
      redis ? new RedisRateCounter(redis, `${redisKeyPrefix(services)}key:`) : new MemoryRateCounter(),
    );
  });
}

function refuse(message: string, resetAt: number): GatewayError {
  const retryAfter = Math.max(1, Math.ceil((resetAt - Date.now()) / 1000));
  return new GatewayError('rate_limit_exceeded', `${message} Retry after ${retryAfter} s.`, { headers: { 'retry-after': String(retryAfter) }, retryAfter });
}

async function* chargeAtEnd(parts: AsyncIterable<StreamPart>, ctx: GatewayContext, charge: () => void): AsyncGenerator<StreamPart> {
  try {
    yield* noteStreamUsage(parts, ctx);
  } finally {
    charge();
  }
}

/**
 * The limits a gateway key carries (`limits` of the token operations): `rpm` requests and `tpm`
 * tokens per minute (fixed one-minute windows, counted like rateLimits: in Redis with
 * redis.url), and `maxParallel` requests running at once. A slot is taken before the request
 * goes on and released exactly once: when the answer is done (a stream when it ends), when the
 * request fails, and when the caller goes away (the response's close). Past a limit: 429
 * rate_limit_exceeded with Retry-After (maxParallel: Retry-After 1).
 */
export default defineStage<KeyLimitsStageConfig>({
  name: 'key-limits',
  description: "Applies the request's gateway key limits: rpm, tpm and maxParallel.",
  schema: schemaDocument('stages/key-limits.schema.json'),
  once: true,
  // also CALL_TOKENS (through usedTokens / failedRequestTokens): undeclared, since only the tool loop writes it and a gateway may run without it
  reads: [GATEWAY_KEY, BATCH_LINE, USAGE, RESPONSE],
  create(_config, services) {
    const slots = parallelSlots(services);
    const counter = keyCounter(services);
    const logger = services.logger;
    const warn = (err: unknown) => logger.warn({ err: (err as Error)?.message }, 'key limit counters unavailable; requests pass uncounted');
    const limited = async (ctx: GatewayContext, next: () => Promise<void>, key: GatewayKey, limits: NonNullable<GatewayKey['limits']>): Promise<void> => {
      let tokenSlot: { key: string; ttlMs: number } | undefined;
      if (limits.rpm !== undefined || limits.tpm !== undefined) {
        const now = Date.now();
        const window = Math.floor(now / MINUTE);
        const resetAt = (window + 1) * MINUTE;
        const slot = { key: `${key.id}:${window}`, ttlMs: resetAt - now };
        const state = await counter.hit([slot]).then(
          (s) => s[0],
          (err) => void warn(err),
        );
        if (state && limits.rpm !== undefined && state.requests > limits.rpm) throw refuse(`Rate limit of this key exceeded: ${limits.rpm} requests per minute.`, resetAt);
        if (state && limits.tpm !== undefined && state.tokens >= limits.tpm) throw refuse(`Rate limit of this key exceeded: ${limits.tpm} tokens per minute.`, resetAt);
        if (limits.tpm !== undefined) tokenSlot = slot;
      }
      const chargeTokens = (tokens: number) => {
        if (tokenSlot && tokens > 0) counter.addTokens([tokenSlot], tokens).catch(warn);
      };
      const charge = () => chargeTokens(tokenSlot ? usedTokens(ctx) : 0);
      // a request that fails still counts the tokens of the model calls made for it (a tool loop's rounds before the failure)
      const chargeFailed = () => chargeTokens(tokenSlot ? failedRequestTokens(ctx) : 0);
      if (limits.maxParallel === undefined) {
        try {
          await next();
        } catch (err) {
          chargeFailed();
          throw err;
        }
        if (ctx.response?.kind === 'stream') ctx.response.parts = chargeAtEnd(ctx.response.parts as AsyncIterable<StreamPart>, ctx, charge);
        else charge();
        return;
      }
      if (!(await slots.acquire(key.id, limits.maxParallel))) {
        throw new GatewayError('rate_limit_exceeded', `This key already has ${limits.maxParallel} request(s) running (limits.maxParallel); retry when one ends.`, {
          headers: { 'retry-after': '1' },
          retryAfter: 1,
        });
      }
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        slots.release(key.id).catch(warn);
      };
      // The caller going away (or the answer's end) closes the response: the slot is freed then at the latest.
      ctx.res.once('close', release);
      let streaming = false;
      try {
        try {
          await next();
        } catch (err) {
          chargeFailed();
          throw err;
        }
        if (ctx.response?.kind === 'stream' && !ctx.res.writableEnded && !ctx.res.destroyed) {
          streaming = true;
          const parts = ctx.response.parts as AsyncIterable<StreamPart>;
          ctx.response.parts = chargeAtEnd(parts, ctx, () => {
            charge();
            release();
          });
        } else charge();
      } finally {
        if (!streaming) release();
      }
    };
    // A request without a key, or whose key has no limits, passes in the same turn (no async frame of its own).
    return (ctx, next) => {
      const key = ctx.get(GATEWAY_KEY);
      const limits = key?.limits;
      if (!key || !limits || ctx.has(BATCH_LINE)) return next();
      return limited(ctx, next, key, limits);
    };
  },
});
