import type { ErrorObject } from 'ajv';

/**
 * Values read from the environment are text. Where validation says a key wants an integer, a
 * number or a boolean, and the value came from a `${VAR}` reference, the text is converted
 * ("8787" -> 8787, "true" -> true). Values written in the file itself are never converted.
 * Returns whether anything changed (then the caller validates again).
 */
export function coerceFromEnvironment(tree: Record<string, unknown>, errors: ErrorObject[] | null | undefined, fromEnv: Set<string>): boolean {
  let changed = false;
  for (const err of errors ?? []) {
    if (err.keyword !== 'type' || !fromEnv.has(err.instancePath)) continue;
    const parts = err.instancePath
      .split('/')
      .slice(1)
      .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
    const key = parts.pop();
    if (key === undefined) continue;
    let parent: unknown = tree;
    for (const part of parts) parent = isTree(parent) ? parent[part] : undefined;
    if (!isTree(parent)) continue;
    const text = parent[key];
    if (typeof text !== 'string') continue;
    const wanted = String((err.params as { type: string }).type).split(',');
    const converted = convert(text.trim(), wanted);
    if (converted === undefined) continue;
    parent[key] = converted;
    changed = true;
  }
  return changed;
}

function isTree(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function convert(text: string, wanted: string[]): number | boolean | undefined {
  if (wanted.includes('integer') && /^-?\d+$/.test(text)) return Number(text);
  if (wanted.includes('number') && text !== '' && Number.isFinite(Number(text))) return Number(text);
  if (wanted.includes('boolean')) {
    const v = text.toLowerCase();
    if (['true', '1', 'yes', 'on'].includes(v)) return true;
    if (['false', '0', 'no', 'off'].includes(v)) return false;
  }
  return undefined;
}
