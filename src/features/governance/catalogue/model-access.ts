/**
 * Whether `name` matches `pattern`, where `*` stands for any run of characters (none included).
 * Iterative with one backtrack point: linear in practice, never exponential, whatever the pattern.
 */
export function globMatch(pattern: string, name: string): boolean {
  let p = 0;
  let n = 0;
  let star = -1;
  let mark = 0;
  while (n < name.length) {
    if (p < pattern.length && pattern[p] !== '*' && pattern[p] === name[n]) {
      p++;
      n++;
    } else if (p < pattern.length && pattern[p] === '*') {
      star = p++;
      mark = n;
    } else if (star >= 0) {
      p = star + 1;
      n = ++mark;
    } else return false;
  }
  while (p < pattern.length && pattern[p] === '*') p++;
  return p === pattern.length;
}

/** Whether a key's `models` (undefined: every model) allow the catalogue model `name`. */
export function keyMayUseModel(models: readonly string[] | undefined, name: string): boolean {
  if (models === undefined) return true;
  for (const pattern of models) if (globMatch(pattern, name)) return true;
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
  return models!.some((pattern) => pattern.startsWith(prefix) || globMatch(pattern, prefix));
}
