import { pathToFileURL } from 'node:url';
import type { ProviderRegistry } from '../providers/provider-registry.js';
import type { StageRegistry } from './stage-registry.js';

/**
 * Loads the modules listed under `plugins:`. A plugin exports a stage (`name`, `schema`,
 * `create`, as named exports or a default object), or `stages` / `providers` lists.
 */
export async function loadPlugins(paths: string[], stages: StageRegistry, providers: ProviderRegistry): Promise<string[]> {
  const problems: string[] = [];
  for (const [i, path] of paths.entries()) {
    const origin = `plugins[${i}] (${path})`;
    let mod: Record<string, any>;
    try {
      mod = await import(path.startsWith('/') ? pathToFileURL(path).href : path);
    } catch (err) {
      problems.push(`${origin}: cannot be loaded: ${(err as Error).message.split('\n')[0]}`);
      continue;
    }
    const exported = mod.default && typeof mod.default === 'object' ? mod.default : mod;
    try {
      let found = false;
      if (typeof exported.name === 'string' && typeof exported.create === 'function') {
        stages.register({ name: exported.name, schema: exported.schema, create: exported.create, description: exported.description }, origin);
        found = true;
      }
      for (const stage of exported.stages ?? []) {
        stages.register(stage, origin);
        found = true;
      }
      for (const provider of exported.providers ?? []) {
        providers.register(provider, origin);
        found = true;
      }
      if (!found) problems.push(`${origin}: exports no stage ({ name, schema, create }) and no stages or providers list`);
    } catch (err) {
      problems.push((err as Error).message);
    }
  }
  return problems;
}
