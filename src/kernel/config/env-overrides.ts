/** The contract's environment overrides, applied before validation. */
type Tree = Record<string, unknown>;

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

export function applyEnvOverrides(config: Tree, env: NodeJS.ProcessEnv): Tree {
  if (env.GATEWAY_AUTH_TYPE) section(config, 'auth').type = env.GATEWAY_AUTH_TYPE;
  if (env.GATEWAY_AUTH_ENABLED) section(config, 'auth').enabled = parseBoolean(env.GATEWAY_AUTH_ENABLED);
  if (env.GATEWAY_ADMIN_TOKEN) section(config, 'auth').adminToken = env.GATEWAY_ADMIN_TOKEN;
  if (env.GATEWAY_PORT) section(config, 'server').port = parseInteger(env.GATEWAY_PORT);
  if (env.GATEWAY_SECRET_KEY) section(config, 'secrets').key = env.GATEWAY_SECRET_KEY;
  return config;
}
