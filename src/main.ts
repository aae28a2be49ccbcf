#!/usr/bin/env node
import { ConfigError, configPathFrom, loadConfigFile } from './config/load-config.js';
import { PipelineError } from './engine/pipeline-compiler.js';
import { createGateway } from './gateway.js';

/** Standalone service: load config -> compile pipelines -> listen; SIGTERM drains and exits 0. */
async function main(): Promise<void> {
  const path = configPathFrom(process.argv.slice(2), process.env);
  let gateway;
  try {
    const config = loadConfigFile(path);
    gateway = await createGateway(config);
    const url = await gateway.listen();
    gateway.services.logger.info({ url, config: path }, 'gateway listening');
  } catch (err) {
    if (err instanceof ConfigError || err instanceof PipelineError) {
      for (const line of err.problems) process.stderr.write(`${line}\n`);
      process.exit(1);
    }
    process.stderr.write(`gateway failed to start: ${(err as Error).message}\n`);
    process.exit(1);
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
