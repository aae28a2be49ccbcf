import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (works from src/ under vitest and from dist/ when built). */
export const ROOT_DIR = join(dirname(fileURLToPath(import.meta.url)), '..');
export const SCHEMA_DIR = join(ROOT_DIR, 'schema');
export const DEFAULT_PIPELINES_DIR = join(ROOT_DIR, 'pipelines');
