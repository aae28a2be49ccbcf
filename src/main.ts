#!/usr/bin/env node
import { ConfigError, configPathFrom, loadConfigFile } from './kernel/config/load-config.js';
import type { Gateway } from './gateway.js';
import { holdYoungGeneration, releaseYoungGeneration } from './kernel/memory/startup-heap.js';

/** The lines a start-up failure prints: one per problem, each naming the key (or file) at fault. */
function startupProblems(err: unknown): string[] {
  if (err instanceof ConfigError) return err.problems;
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE' || code === 'EACCES') return [`server.port: cannot listen (${(err as Error).message})`];
  return [`gateway failed to start: ${(err as Error).message}`];
}

function exitWith(problems: string[]): never {
  for (const line of problems) process.stderr.write(`${line}\n`);
  process.exit(1);
}

/** Standalone service: load config -> compile pipelines -> listen; SIGTERM drains and exits 0. */
async function main(): Promise<void> {
  holdYoungGeneration();
  const path = configPathFrom(process.argv.slice(2), process.env);
  let gateway: Gateway;
  try {
    const config = loadConfigFile(path);
    // Loaded after the config is known good, so a bad config is reported at once.
    const { createGateway, PipelineError } = await import('./gateway.js');
    gateway = await createGateway(config).catch((err) => {
      throw err instanceof PipelineError ? new ConfigError(err.problems, 'pipelines') : err;
    });
  } catch (err) {
    exitWith(startupProblems(err));
  }
  try {
    const url = await gateway.listen();
    releaseYoungGeneration();
    gateway.services.logger.info({ url, config: path }, 'gateway listening');
  } catch (err) {
    // Stop what the capabilities started (stores, tool servers) before leaving.
    await gateway.close(0).catch(() => undefined);
    exitWith(startupProblems(err));
  }
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    gateway.services.logger.info({ signal }, 'draining');
    gateway
      .close()
      .then(() => process.exit(0))
      .catch((err) => {
        process.stderr.write(`error during shutdown: ${(err as Error).message}\n`);
        process.exit(1);
      });
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

void main();
