import type { GatewayConfig } from '../generated/gateway.js';
import { checkConfigFile, ConfigError, type CheckedConfig } from '../kernel/config/load-config.js';
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
 * configured) without listening or starting tool servers, batches or connections. Resolves with
 * every problem at once (empty: ok): those of the config file, and those of the plugins and
 * pipelines, which are compiled even when the config has problems (as far as it allows).
 */
export async function checkConfig(path: string): Promise<string[]> {
  let checked: CheckedConfig;
  try {
    checked = checkConfigFile(path);
  } catch (err) {
    return problemLines(err); // unreadable or unparsable: nothing more to check
  }
  const problems = [...checked.problems];
  try {
    const { createGateway } = await import('../gateway.js');
    const gateway = await createGateway(inertCopy(checked.config));
    await gateway.close(0);
  } catch (err) {
    // With problems in the config, only what the compile itself names is added (the rest follows from those).
    if (!problems.length || err instanceof ConfigError || err instanceof PipelineError) problems.push(...problemLines(err));
  }
  return [...new Set(problems)];
}
