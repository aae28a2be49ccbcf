import { registeredFeatures, type EnvOverride } from './features.js';

/** The contract's environment overrides, applied before validation. */
type Tree = Record<string, unknown>;

/** The kernel's own: GATEWAY_PORT sets server.port; the features declare theirs (GATEWAY_AUTH_TYPE, GATEWAY_SECRET_KEY...). */
const KERNEL_OVERRIDES: readonly EnvOverride[] = [{ variable: 'GATEWAY_PORT', key: 'server.port', type: 'integer' }];

function section(config: Tree, key: string): Tree {
  if (!config[key] || typeof config[key] !== 'object') config[key] = {};
  return config[key] as Tree;
}

function parseBoolean(raw: string): boolean | string {
  const v = raw.trim().toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(v)) return true;
  if (['false', '0', 'no', 'off'].includes(v)) return false;
  return raw; // left as a string so validation names the key
}

function parseInteger(raw: string): number | string {
  return /^\d+$/.test(raw.trim()) ? Number(raw.trim()) : raw;
}

/** Each set variable of the kernel's overrides and the registered features' written at its key (`auth.type`). */
export function applyEnvOverrides(config: Tree, env: NodeJS.ProcessEnv): Tree {
  for (const { variable, key, type } of [...KERNEL_OVERRIDES, ...registeredFeatures().flatMap((f) => f.envOverrides ?? [])]) {
    const raw = env[variable];
    if (!raw) continue;
    const path = key.split('.');
    const last = path.pop()!;
    let node = config;
    for (const part of path) node = section(node, part);
    node[last] = type === 'boolean' ? parseBoolean(raw) : type === 'integer' ? parseInteger(raw) : raw;
  }
  return config;
}
