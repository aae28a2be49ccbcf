import type { Gateway } from '../gateway.js';

/** What the pipelines serve: each pipeline's name with the routes it serves (by pipeline name, in route order). */
export function pipelineRoutes(gateway: Gateway): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [key, pipeline] of gateway.pipelines) (out[pipeline.name] ??= []).push(key);
  return out;
}

/** Where the store lives, without credentials (a postgres URL is shown as its host and database). */
function storeText(gateway: Gateway): string {
  const storage = gateway.config.storage ?? {};
  if (storage.type !== 'postgres') return `sqlite ${storage.path ?? './data/gateway.db'}`;
  try {
    const url = new URL(storage.url!);
    return `postgres ${url.host}${url.pathname}${storage.schema ? ` (schema ${storage.schema})` : ''}`;
  } catch {
    return 'postgres';
  }
}

/**
 * The fields of the start-up line (and of the "config reloaded" line): listen address and URL,
 * config file, providers with a configured baseUrl, pipelines and the routes each serves, auth
 * mode, tool servers and store.
 */
export function startupFields(gateway: Gateway, configPath: string): Record<string, unknown> {
  const config = gateway.config;
  const providers: Record<string, string> = {};
  for (const [id, p] of Object.entries(config.providers ?? {})) if (p?.baseUrl) providers[id] = p.baseUrl;
  const auth = config.auth?.enabled ? `${config.auth.type ?? 'bearer'}${config.auth.providerRoutes ? ' (provider routes too)' : ' (/mcp only)'}` : 'off';
  return {
    listen: gateway.listenAddress,
    url: gateway.url,
    config: configPath,
    providers,
    pipelines: pipelineRoutes(gateway),
    auth,
    mcpServers: Object.entries(config.mcpServers ?? {})
      .filter(([, s]) => s.enabled !== false)
      .map(([name, s]) => `${name} (${s.url ? 'remote' : 'process'})`),
    store: storeText(gateway),
    pid: process.pid,
  };
}
