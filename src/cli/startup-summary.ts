import type { Gateway } from '../gateway.js';
import { registeredFeatures } from '../config.js';

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
 * config file, pipelines and the routes each serves, what each feature says of its part of the
 * config (the auth mode, the tool servers, the providers with a configured baseUrl), and the store.
 */
export function startupFields(gateway: Gateway, configPath: string): Record<string, unknown> {
  const fields: Record<string, unknown> = { listen: gateway.listenAddress, url: gateway.url, config: configPath, pipelines: pipelineRoutes(gateway) };
  for (const feature of registeredFeatures()) if (feature.startupFields) Object.assign(fields, feature.startupFields(gateway.config));
  return { ...fields, store: storeText(gateway), pid: process.pid };
}
