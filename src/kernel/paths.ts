import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The repository (or installed package) root: the nearest folder above this module that holds
 * schema/gateway.schema.json. Works from src/ under vitest, from dist/ when built, and from a
 * build output placed deeper in the tree.
 */
function findRoot(from: string): string {
  let dir = from;
  for (;;) {
    if (existsSync(join(dir, 'schema', 'gateway.schema.json'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return join(from, '..');
    dir = parent;
  }
}

export const ROOT_DIR = findRoot(dirname(fileURLToPath(import.meta.url)));
export const SCHEMA_DIR = join(ROOT_DIR, 'schema');
export const DEFAULT_PIPELINES_DIR = join(ROOT_DIR, 'pipelines');
export const PRICES_DIR = join(ROOT_DIR, 'prices');
