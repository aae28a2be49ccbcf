import { buildConfig } from '../../src/config/load-config.js';
import type { GatewayServices } from '../../src/engine/services.js';
import { StageRegistry } from '../../src/engine/stage-registry.js';
import { createLogger } from '../../src/observability/logger.js';
import { Metrics } from '../../src/observability/metrics.js';
import { ProviderRegistry } from '../../src/providers/provider-registry.js';
import { BUILTIN_PROVIDERS } from '../../src/providers/builtin-providers.js';
import { BUILTIN_STAGES } from '../../src/stages/builtin-stages.js';
import { UpstreamClient } from '../../src/upstream/upstream-client.js';
import { LogCollector } from './start-gateway.js';

/** The services a stage factory receives, built from a raw config, without a server. */
export function makeServices(raw: Record<string, unknown> = {}): GatewayServices & { logs: LogCollector } {
  const config = buildConfig(raw, 'test', { env: {} });
  const logs = new LogCollector();
  const stages = new StageRegistry();
  for (const stage of BUILTIN_STAGES) stages.register(stage);
  const providers = new ProviderRegistry();
  for (const provider of BUILTIN_PROVIDERS) providers.register(provider);
  providers.instantiate(config);
  return {
    config,
    logger: createLogger('info', logs),
    metrics: new Metrics(false),
    providers,
    upstream: new UpstreamClient(),
    stages,
    readiness: new Map(),
    closers: [],
    extensions: new Map(),
    logs,
  };
}
