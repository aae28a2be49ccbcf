import { matchesWildcard } from '../../kernel/text/wildcard.js';

/** Whether a key's `models` (undefined: every model) allow the catalogue model `name`. */
export function keyMayUseModel(models: readonly string[] | undefined, name: string): boolean {
  if (models === undefined) return true;
  for (const pattern of models) if (matchesWildcard(pattern, name)) return true;
  return false;
}

/**
 * Whether a key's `models` reach any model of catalogue entry `entry` (a name, or a provider glob
 * such as "openai/*": then a pattern naming one of its models reaches it too).
 */
export function keyReachesEntry(models: readonly string[] | undefined, entry: string): boolean {
  if (keyMayUseModel(models, entry)) return true;
  if (!entry.endsWith('*')) return false;
  const prefix = entry.slice(0, -1);
  return models!.some((pattern) => pattern.startsWith(prefix) || matchesWildcard(pattern, prefix));
}
