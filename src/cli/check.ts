import type { GatewayConfig } from '../generated/gateway.js';
import { ConfigError, loadConfigFile } from '../kernel/config/load-config.js';
import { PipelineError } from '../kernel/engine/pipeline-compiler.js';

/** The problems of a start-up or reload failure, one line each, naming the key (or file) at fault. */
export function problemLines(err: unknown): string[] {
  if (err instanceof ConfigError || err instanceof PipelineError) return err.problems;
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE' || code === 'EACCES') return [`server.port: cannot listen (${(err as Error).message})`];
  return [`gateway failed to start: ${(err as Error).message}`];
}

/**
 * The config as --check sees it: the real config with nothing it would connect to or change:
 * an in-memory store instead of the configured one, no Redis, logging off.
 */
function inertCopy(config: GatewayConfig): GatewayConfig {
  const copy: GatewayConfig = { ...config, storage: { ...config.storage, type: 'sqlite', path: ':memory:' }, logging: { ...config.logging, level: 'silent' } };
  delete copy.redis;
  if (copy.cache?.store === 'redis') copy.cache = { ...copy.cache, store: 'memory' };
  return copy;
}

/**
 * --check: validates the config file and compiles every pipeline (plugins loaded, stages
 * configured) without listening or starting tool servers, batches or connections.
 * Resolves with the problems (empty: ok).
 */
export async function checkConfig(path: string): Promise<string[]> {
  let config: GatewayConfig;
  try {
    config = loadConfigFile(path);
  } catch (err) {
    return problemLines(err);
  }
  try {
    const { createGateway } = await import('../gateway.js');
    const gateway = await createGateway(inertCopy(config));
    await gateway.close(0);
  } catch (err) {
    return problemLines(err);
  }
  return [];
}
