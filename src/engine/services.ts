import type { GatewayConfig } from '../generated/gateway.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import type { ProviderRegistry } from '../providers/provider-registry.js';
import type { UpstreamClient } from '../upstream/upstream-client.js';
import type { StageRegistry } from './stage-registry.js';

/**
 * Long-lived parts shared by every pipeline, built once at start-up and handed to each
 * stage factory. Later capabilities add their own entries to `extensions` under a name.
 */
export interface GatewayServices {
  config: GatewayConfig;
  logger: Logger;
  metrics: Metrics;
  providers: ProviderRegistry;
  upstream: UpstreamClient;
  stages: StageRegistry;
  /** Named readiness checks for /ready; all must be true. */
  readiness: Map<string, () => boolean>;
  /** Called at shutdown, last registered first. */
  closers: Array<() => Promise<void> | void>;
  /** Services added by capabilities (store, cache, rate limiter, token service...). */
  extensions: Map<string, unknown>;
}

export function getExtension<T>(services: GatewayServices, name: string): T | undefined {
  return services.extensions.get(name) as T | undefined;
}
