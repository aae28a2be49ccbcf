import { dirname, join, resolve } from 'node:path';
import type { GatewayConfig } from '../../generated/gateway.js';
import { registeredFeatures } from './features.js';

/**
 * Fills in the defaults the rest of the gateway relies on: the kernel's (server, storage, logging,
 * then pipelines and plugins) and those each registered feature declares for its keys, in the
 * order they were registered; paths become absolute.
 */
export function applyDefaults(config: GatewayConfig, env: NodeJS.ProcessEnv, cwd: string): GatewayConfig {
  const dataDir = env.GATEWAY_DATA_DIR ? resolve(cwd, env.GATEWAY_DATA_DIR) : resolve(cwd, 'data');
  const server = { host: '0.0.0.0', port: 8787, shutdownGracePeriod: '30s', bodyLimit: 10 * 1024 * 1024, ...config.server };
  const storage = { type: 'sqlite' as const, ...config.storage };
  storage.path = env.GATEWAY_DATA_DIR ? resolve(dataDir, 'gateway.db') : resolve(cwd, storage.path ?? './data/gateway.db');
  storage.filesDir = env.GATEWAY_DATA_DIR ? resolve(dataDir, 'files') : resolve(cwd, storage.filesDir ?? defaultFilesDir(config.storage?.path));
  let out: GatewayConfig = { ...config, server, storage, logging: { level: 'info', requests: true, ...config.logging } };
  for (const feature of registeredFeatures()) {
    if (!feature.defaults) continue;
    const next: Record<string, unknown> = { ...out };
    for (const [key, value] of Object.entries(feature.defaults(out))) if (feature.configKeys.includes(key)) next[key] = value;
    out = next as GatewayConfig;
  }
  return {
    ...out,
    pipelines: { dir: config.pipelines?.dir ? resolve(cwd, config.pipelines.dir) : undefined },
    plugins: (config.plugins ?? []).map((p) => (p.startsWith('.') || p.startsWith('/') ? resolve(cwd, p) : p)),
  };
}

/** The files folder when none is set: `files` beside a configured SQLite file, else ./data/files. */
function defaultFilesDir(path: string | undefined): string {
  return path && path !== ':memory:' ? join(dirname(path), 'files') : './data/files';
}

/** "30s" / "500ms" / "5m" / "2h" / "1d" -> milliseconds. */
export function parseDuration(text: string): number {
  const m = /^(\d+)(ms|s|m|h|d)$/.exec(text.trim());
  if (!m) throw new Error(`not a duration: ${text}`);
  const n = Number(m[1]);
  const unit = m[2];
  return unit === 'ms' ? n : unit === 's' ? n * 1000 : unit === 'm' ? n * 60_000 : unit === 'h' ? n * 3_600_000 : n * 86_400_000;
}
