import { objectOf, type JsonObject } from '../json.js';

/** A provider's timestamp (Unix seconds or ms, or an ISO date) as Unix seconds; null when absent. */
export function unixSeconds(value: unknown): number | null {
  if (typeof value === 'number') return value > 1e12 ? Math.floor(value / 1000) : Math.floor(value);
  if (typeof value === 'string' && value !== '') {
    if (/^\d+$/.test(value)) return unixSeconds(Number(value));
    const ms = Date.parse(value);
    return Number.isNaN(ms) ? null : Math.floor(ms / 1000);
  }
  return null;
}

/** OpenAI's file object from a provider's file record (fields it already has are kept). */
export function openAIFile(record: unknown, purpose?: (p: string) => string): JsonObject & { id: string; created_at: number } {
  const file = objectOf(record);
  const raw = typeof file.purpose === 'string' ? file.purpose : 'fine-tune';
  return {
    ...file,
    id: String(file.id),
    object: 'file',
    bytes: Number(file.bytes ?? file.size ?? 0),
    created_at: unixSeconds(file.created_at) ?? 0,
    filename: String(file.filename ?? file.file_name ?? file.name ?? ''),
    purpose: purpose ? purpose(raw) : raw,
    status: typeof file.status === 'string' ? file.status : 'processed',
    status_details: file.status_details ?? null,
  };
}

/** A delete answer as OpenAI's `{id, object: "file", deleted}`. */
export function fileDeleted(answer: unknown, id: string): Record<string, unknown> {
  const body = objectOf(answer);
  return { id: String(body.id ?? id), object: 'file', deleted: body.deleted !== false };
}
