import type { GatewayConfig } from '../../generated/gateway.js';
import { defineFeature } from '../../kernel/config/features.js';
import { MemoryRateCounter } from './rate-limit/memory-counter.js';
import { MemoryCacheStore } from './cache/memory-store.js';

/** The rules of the models feature's keys a JSON Schema cannot say well. */
function modelsChecks(config: GatewayConfig): string[] {
  const out: string[] = [];
  if (config.cache?.store === 'redis' && !config.redis?.url) out.push('redis.url: is required when cache.store is redis');
  if (config.routing?.defaultConfig && !config.configs?.[config.routing.defaultConfig]) {
    out.push(`routing.defaultConfig: names no config under configs (${config.routing.defaultConfig})`);
  }
  return out;
}

/**
 * The models feature's part of the gateway config: `providers`, `routing` and the routing
 * `configs`, the response `cache` and `rateLimits`. `--check` uses an in-memory cache instead of
 * a Redis one (it connects to nothing); the start-up line names the providers with a configured
 * baseUrl; without Redis, the primary of a cluster holds the rate counters and the cache.
 */
export const modelsFeature = defineFeature({
  name: 'models',
  configKeys: ['providers', 'routing', 'configs', 'cache', 'rateLimits'],
  defaults: (config) => ({
    routing: { allowCustomHost: false, ...config.routing },
    providers: config.providers ?? {},
  }),
  checks: [modelsChecks],
  inert: (config) => (config.cache?.store === 'redis' ? { ...config, cache: { ...config.cache, store: 'memory' } } : config),
  startupFields(config) {
    const providers: Record<string, string> = {};
    for (const [id, p] of Object.entries(config.providers ?? {})) if (p?.baseUrl) providers[id] = p.baseUrl;
    return { providers };
  },
  clusterState(config) {
    // Each method takes the arguments of the store method it stands for (the worker's proxy sends those).
    const counter = new MemoryRateCounter();
    const cache = new MemoryCacheStore(config.cache?.maxEntries ?? 10_000);
    return {
      'rate-limit': { hit: (slots) => counter.hit(slots), addTokens: (slots, tokens) => counter.addTokens(slots, tokens) },
      cache: { get: (key) => cache.get(key), set: (key, value, ttl) => cache.set(key, value, ttl) },
    };
  },
});
