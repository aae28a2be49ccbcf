import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import type { ValidateFunction } from 'ajv';
import { PRECOMPILED_FILE } from './ajv-options.js';

/** What scripts/compile-schemas.mjs writes: validators by schema $id, and the hash of the schema/ texts they were made from. */
interface PrecompiledModule {
  schemaHash: string;
  schemas: Record<string, ValidateFunction>;
  extensions: Record<string, ValidateFunction>;
}

/** The hash the build stamps on its validators: every schema file's path and text, in name order. */
export function schemaTextsHash(files: Array<{ rel: string; text: string }>): string {
  const hash = createHash('sha256');
  for (const { rel, text } of [...files].sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0))) hash.update(`${rel}\n${text}\n`);
  return hash.digest('hex');
}

/**
 * The validators the build compiled ahead (so start-up compiles no schema), when they were made
 * from the schema/ texts found now; undefined otherwise (running from the sources, or schema/
 * edited after the build): then validators are compiled at run time, with the same options.
 */
export function loadPrecompiled(schemaHash: string): PrecompiledModule | undefined {
  let mod: PrecompiledModule;
  try {
    // The build writes it at the build's root (dist/schema-validators.cjs); this module is dist/kernel/config/.
    mod = createRequire(import.meta.url)(`../../${PRECOMPILED_FILE}`) as PrecompiledModule;
  } catch {
    return undefined;
  }
  return mod?.schemaHash === schemaHash ? mod : undefined;
}
