import { pathToFileURL } from 'node:url';
import type { ExtensionKinds } from './extension.js';

/**
 * A module's exports, and each extension in them, as the loader reads them: no field is
 * trusted (a list that is not iterable fails its module's line; `register` checks the rest).
 */
type Fields = Record<string, unknown>;

/**
 * Loads the modules listed under `plugins:`. A plugin exports one extension (`name`, `schema`,
 * `description`, `create`, and `kind`: stage by default, or a kind a feature added, such as
 * guardrail-check, provider, auth-mode; as named exports or a default object), and/or lists
 * (each kind's registry names its own: `stages`, `providers`, `checks`, `authModes`), or
 * `extensions` (each item with its `kind`), and/or definitions the
 * plugin API's define* helpers made (tagged with their kind), under any export name. Each is registered in the
 * registry of its kind, as the built-ins are. Returns one problem line per module at fault.
 */
export async function loadPlugins(paths: string[], kinds: ExtensionKinds): Promise<string[]> {
  const problems: string[] = [];
  // The lists a module may export instead of (or beside) one extension: each registry names its own.
  const lists = kinds.lists();
  for (const [i, path] of paths.entries()) {
    const origin = `plugins[${i}] (${path})`;
    let mod: Fields;
    try {
      mod = (await import(path.startsWith('/') ? pathToFileURL(path).href : path)) as Fields;
    } catch (err) {
      problems.push(`${origin}: cannot be loaded: ${(err as Error).message.split('\n')[0]}`);
      continue;
    }
    const exported = (mod.default && typeof mod.default === 'object' ? mod.default : mod) as Fields;
    const seen = new Set<unknown>();
    const register = (kind: unknown, ext: unknown) => {
      if (seen.has(ext)) return;
      seen.add(ext);
      const registry = typeof kind === 'string' ? kinds.get(kind) : undefined;
      if (!registry) throw new Error(`${origin}: kind ${JSON.stringify(kind)} is not one of ${kinds.names().join(', ')}`);
      const { kind: _kind, ...definition } = ext as Record<string, unknown>;
      registry.register(definition, origin);
    };
    try {
      let found = false;
      if (typeof exported.name === 'string' || typeof exported.create === 'function') {
        const single: Fields = {};
        for (const key in exported) if (key !== 'default' && key !== 'extensions' && !lists.some(([list]) => list === key)) single[key] = exported[key];
        register(exported.kind ?? 'stage', single);
        found = true;
      }
      for (const [list, kind] of lists) {
        for (const ext of (exported[list] ?? []) as Iterable<unknown>) {
          register(kind, ext);
          found = true;
        }
      }
      for (const ext of (exported.extensions ?? []) as Iterable<unknown>) {
        register((ext as Fields | null | undefined)?.kind ?? 'stage', ext);
        found = true;
      }
      // Definitions made by the plugin API's define* helpers carry their kind: any named export.
      for (const [key, value] of Object.entries(mod)) {
        if (key === 'default' || lists.some(([list]) => list === key) || key === 'extensions' || value === exported) continue;
        const def = value as Fields | null | undefined;
        if (def && typeof def === 'object' && typeof def.kind === 'string' && typeof def.name === 'string' && typeof def.create === 'function') {
          register(def.kind, def);
          found = true;
        }
      }
      if (!found) {
        problems.push(
          `${origin}: exports no extension ({ name, schema, create }, with kind ${kinds.names().join(', ')}) and no ${[...lists.map(([list]) => list), 'extensions'].join(', ')} list`,
        );
      }
    } catch (err) {
      problems.push((err as Error).message);
    }
  }
  return problems;
}
