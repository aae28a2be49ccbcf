import { createHash } from 'node:crypto';

type Item = Record<string, unknown>;

/** The fields of a tool's definition that are pinned (its whole definition as MCP describes it). */
export const TOOL_FIELDS = ['name', 'title', 'description', 'inputSchema', 'outputSchema', 'annotations', '_meta'] as const;
/** The fields of a prompt's definition that are pinned. */
export const PROMPT_FIELDS = ['name', 'title', 'description', 'arguments', 'icons', '_meta'] as const;

/** JSON with every object's keys sorted (arrays keep their order): the same definition always gives the same text. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  const keys = Object.keys(value)
    .filter((k) => (value as Item)[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Item)[k])}`).join(',')}}`;
}

/** The pinned part of a definition: the named fields it has. */
export function definitionOf(item: Item, fields: readonly string[]): Item {
  const out: Item = {};
  for (const field of fields) if (item[field] !== undefined) out[field] = item[field];
  return out;
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** A definition's canonical text and its SHA-256. */
export function pinOf(item: Item, fields: readonly string[]): { text: string; digest: string } {
  const text = canonicalJson(definitionOf(item, fields));
  return { text, digest: sha256(text) };
}

/** The fields whose canonical value differs between two canonical definitions (the difference logged and audited). */
export function changedFields(before: string | undefined, after: string, fields: readonly string[]): string[] {
  let old: Item = {};
  try {
    old = before ? (JSON.parse(before) as Item) : {};
  } catch {
    return [...fields];
  }
  const now = JSON.parse(after) as Item;
  return fields.filter((f) => canonicalJson(old[f]) !== canonicalJson(now[f]));
}
