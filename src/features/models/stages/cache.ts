import type { CacheStageConfig } from '../../../generated/stages/cache.js';
import { schemaDocument } from '../../../kernel/config/schema-validator.js';
import { defineStage } from '../../../kernel/engine/stage.js';
import { parseBooleanHeader, RESPONSE } from '../../../kernel/engine/context.js';
import { ensureJsonBody, BODY, BODY_CHANGED, RAW_BODY } from '../../../kernel/engine/request-body.js';
import { TARGET, type ModelContext } from '../model-request.js';
import type { ResolvedTarget } from '../providers/provider.js';
import { modelAnswer, modelStream, type ModelAnswer } from '../stream-answer.js';
import { cacheKey } from '../cache/cache-key.js';
import { MAX_CACHED_BYTES, type CachedAnswer } from '../cache/cache-store.js';
import { captureStream, replayChunks } from '../cache/stream-capture.js';
import { responseCache } from '../routing/resilience-services.js';

export const CACHE_STATUS = 'x-gateway-cache-status';
const DEFAULT_MAX_AGE = 300;

function fromCache(ctx: ModelContext, hit: CachedAnswer): ModelAnswer {
  if (hit.kind === 'json') return { kind: 'json', status: hit.status, raw: Buffer.from(hit.body, 'utf8') };
  return modelStream(ctx, hit.status, hit.format, false, replayChunks(hit.chunks, hit.format));
}

/**
 * The `simple` answer cache of a routing config (the target's cache): an identical request
 * (route, provider, address, provider-key hash, body) within max_age seconds is answered from
 * the cache, streams replayed from their recorded chunks. Only complete 2xx answers are
 * stored. `x-gateway-cache-force-refresh: true` skips the lookup and stores the new answer.
 * Sets x-gateway-cache-status: HIT, MISS, REFRESH, or DISABLED (cache off for this target or
 * route). Runs once per target attempt, after route.
 */
export default defineStage<CacheStageConfig, ModelContext>({
  name: 'cache',
  description: 'Answers identical requests from the response cache (routing config cache: simple).',
  schema: schemaDocument('stages/cache.schema.json'),
  requires: [TARGET],
  reads: [BODY, RAW_BODY, BODY_CHANGED, RESPONSE],
  writes: [RESPONSE],
  create(_config, services) {
    const store = responseCache(services);
    const bodyLimit = services.config.server?.bodyLimit ?? 10 * 1024 * 1024;
    let lastWarning = 0;
    const warn = (err: unknown) => {
      const now = Date.now();
      if (now - lastWarning < 10_000) return;
      lastWarning = now;
      services.logger.warn({ err: (err as Error)?.message }, 'response cache unavailable');
    };
    /** The lookup and the store of an attempt whose target has a simple cache. */
    const cached = async (ctx: ModelContext, next: () => Promise<void>, target: ResolvedTarget, cache: NonNullable<ResolvedTarget['cache']>): Promise<void> => {
      const headers = ctx.responseHeaders;
      if (ctx.endpoint.body === 'json') await ensureJsonBody(ctx, bodyLimit);
      const key = cacheKey(ctx, target);
      if (!key) {
        headers[CACHE_STATUS] = 'DISABLED';
        return next();
      }
      const refresh = parseBooleanHeader(ctx.headers['x-gateway-cache-force-refresh']);
      if (!refresh) {
        const hit = await store.get(key).catch((err) => {
          warn(err);
          return undefined;
        });
        if (hit) {
          headers[CACHE_STATUS] = 'HIT';
          ctx.response = fromCache(ctx, hit);
          return;
        }
      }
      headers[CACHE_STATUS] = refresh ? 'REFRESH' : 'MISS';
      await next();
      const response = modelAnswer(ctx);
      if (!response || response.kind === 'direct' || response.status < 200 || response.status >= 300) return;
      const ttlMs = (cache.max_age ?? DEFAULT_MAX_AGE) * 1000;
      if (response.kind === 'json') {
        const body = response.raw ? response.raw.toString('utf8') : JSON.stringify(response.body);
        if (body.length <= MAX_CACHED_BYTES) store.set(key, { kind: 'json', status: response.status, body }, ttlMs).catch(warn);
      } else if (response.kind === 'stream') {
        const { status, format } = response;
        response.parts = captureStream(response.parts, format, response.includeUsage, (chunks) => {
          store.set(key, { kind: 'stream', status, format, chunks }, ttlMs).catch(warn);
        });
      }
    };
    // Without a simple cache for the target, next() is the stage's own answer (no promise of its own).
    return (ctx, next) => {
      const target = ctx.get(TARGET);
      const cache = target?.cache;
      const headers = ctx.responseHeaders;
      if (!target || !cache) {
        // An earlier attempt's status must not stick to an answer from a target without a cache.
        if (headers[CACHE_STATUS]) headers[CACHE_STATUS] = 'DISABLED';
        return next();
      }
      if (cache.mode !== 'simple') {
        headers[CACHE_STATUS] = 'DISABLED';
        return next();
      }
      return cached(ctx, next, target, cache);
    };
  },
});
