import { serve } from './serve.js';

/** Serves the config at `path` (one process; `server.workers` adds a cluster of them). */
export async function run(path: string): Promise<void> {
  await serve(path);
}
