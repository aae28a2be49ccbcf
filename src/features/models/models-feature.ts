import type { GatewayConfig } from '../../generated/gateway.js';
import { defineFeature } from '../../kernel/config/features.js';

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
 * a Redis one (it connects to nothing).
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
});
