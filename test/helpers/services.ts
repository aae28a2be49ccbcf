import { buildConfig } from '../../src/config.js';
import { ExtensionKinds } from '../../src/kernel/engine/extension.js';
import { GatewayServices } from '../../src/kernel/engine/services.js';
import { StageRegistry } from '../../src/kernel/engine/stage-registry.js';
import { createLogger } from '../../src/kernel/observability/logger.js';
import { Metrics } from '../../src/kernel/observability/metrics.js';
import { UpstreamClient } from '../../src/kernel/upstream/upstream-client.js';
import { normalizeError } from '../../src/contract/errors/normalize.js';
import { ProviderRegistry, PROVIDERS } from '../../src/features/models/providers/provider-registry.js';
import { BUILTIN_PROVIDERS } from '../../src/features/models/providers/builtin-providers.js';
import { BUILTIN_STAGES } from '../../src/stages/builtin-stages.js';
import { LogCollector } from './start-gateway.js';

/** The services a stage factory receives, built from a raw config, without a server (built-in stages and providers registered). */
export function makeServices(raw: Record<string, unknown> = {}): GatewayServices & { logs: LogCollector } {
  const config = buildConfig(raw, 'test', { env: {} });
  const logs = new LogCollector();
  const kinds = new ExtensionKinds();
  const stages = kinds.add(new StageRegistry());
  for (const stage of BUILTIN_STAGES) stages.register(stage);
  const services = new GatewayServices(config, createLogger('info', logs), new Metrics(false), new UpstreamClient(), kinds, (err, upstream) => normalizeError(err, upstream));
  const providers = services.provide(PROVIDERS, new ProviderRegistry());
  kinds.add(providers.definitions);
  for (const provider of BUILTIN_PROVIDERS) providers.register(provider);
  providers.instantiate(config);
  return Object.assign(services, { logs });
}
