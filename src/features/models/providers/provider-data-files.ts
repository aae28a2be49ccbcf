import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';

/** The build's parsed copy of providers/*.yaml, beside its main.js (scripts/compile-provider-data.mjs). */
export const PROVIDER_DATA_FILE = 'provider-data.json';

/** The data files of a folder (by name) and the hash of their names and texts. */
export function providerDataTexts(dir: string): { hash: string; files: Array<{ name: string; text: string }> } {
  const files = readdirSync(dir)
    .filter((name) => name.endsWith('.yaml'))
    .sort()
    .map((name) => ({ name, text: readFileSync(join(dir, name), 'utf8') }));
  const hash = createHash('sha256');
  for (const f of files) hash.update(`${f.name}\u0000${f.text}\u0000`);
  return { hash: hash.digest('hex'), files };
}

/** The build's parsed files, when it was made from exactly these texts. */
function builtCopy(hash: string): Record<string, unknown> | undefined {
  // This module is dist/features/models/providers/provider-data-files.js in a build.
  const file = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', PROVIDER_DATA_FILE);
  if (!existsSync(file)) return undefined;
  try {
    const built = JSON.parse(readFileSync(file, 'utf8')) as { hash?: string; files?: Record<string, unknown> };
    return built.hash === hash ? built.files : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Every data file of `dir` as parsed YAML, by file name: from the build's copy when it was made
 * from these very texts (no YAML parsed at start-up), else parsed here. A file that is not YAML
 * throws, naming it.
 */
export function parsedProviderData(dir: string): Array<{ name: string; file: string; data: unknown }> {
  const { hash, files } = providerDataTexts(dir);
  const built = builtCopy(hash);
  return files.map(({ name, text }) => {
    const file = join(dir, name);
    if (built && name in built) return { name, file, data: built[name] };
    try {
      return { name, file, data: parseYaml(text) };
    } catch (err) {
      throw new Error(`${file}: not YAML: ${(err as Error).message}`);
    }
  });
}
