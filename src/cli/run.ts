import cluster from 'node:cluster';
import { availableParallelism } from 'node:os';
import { loadConfigFile } from '../config.js';
import { problemLines } from './check.js';
import { serve } from './serve.js';

/** How many processes `server.workers` asks for ("auto": one per core). */
export function workerCount(setting: number | 'auto' | undefined): number {
  if (setting === 'auto') return availableParallelism();
  return setting ?? 1;
}

/** Serves the config at `path`: one process, or with `server.workers` > 1 a node:cluster of them. */
export async function run(path: string): Promise<void> {
  if (cluster.isWorker) {
    // The channel to the primary carries shutdown, reload and shared state: it keeps the worker
    // alive even where a preloaded module unref'd it (a supervisor's exit-with-parent hook).
    process.channel?.ref();
    await serve(path, { worker: true, onListening: (fields) => process.send!({ type: 'gw-listening', fields }) });
    return;
  }
  let workers = 1;
  try {
    const config = loadConfigFile(path);
    workers = workerCount(config.server?.workers);
    if (workers > 1) {
      const { runPrimary } = await import('./cluster-primary.js');
      runPrimary(path, config, workers);
      return;
    }
  } catch (err) {
    for (const line of problemLines(err)) process.stderr.write(`${line}\n`);
    process.exit(1);
  }
  await serve(path);
}
