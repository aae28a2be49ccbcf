import { notFound } from '../errors/gateway-error.js';
import type { SqlStore } from '../store/sql-store.js';

export interface Page<T> {
  rows: T[];
  hasMore: boolean;
}

/** The contract's list: `{"object":"list","data":[...],"has_more":bool}` (plus OpenAI's first/last ids). */
export function listBody<T extends { id: string }>(data: T[], hasMore: boolean) {
  return { object: 'list' as const, data, has_more: hasMore, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null };
}

/**
 * One page of a scoped table, newest first (created_ms, then id), starting after the row
 * `after` (which must exist in the scope: an unknown id is a 404).
 */
export async function pageAfter<T>(
  store: SqlStore,
  table: 'gateway_files' | 'gateway_batches',
  scope: string,
  limit: number,
  after: string | undefined,
  normalize: (row: T) => T,
): Promise<Page<T>> {
  let rows: T[];
  if (after) {
    const anchor = await store.query<{ created_ms: number }>(`SELECT created_ms FROM ${table} WHERE id = ? AND scope = ?`, [after, scope]);
    if (!anchor[0]) throw notFound(`No object with id ${after} to list after.`, 'after');
    const ms = Number(anchor[0].created_ms);
    rows = await store.query<T>(
      `SELECT * FROM ${table} WHERE scope = ? AND (created_ms < ? OR (created_ms = ? AND id < ?)) ORDER BY created_ms DESC, id DESC LIMIT ?`,
      [scope, ms, ms, after, limit + 1],
    );
  } else {
    rows = await store.query<T>(`SELECT * FROM ${table} WHERE scope = ? ORDER BY created_ms DESC, id DESC LIMIT ?`, [scope, limit + 1]);
  }
  return { rows: rows.slice(0, limit).map(normalize), hasMore: rows.length > limit };
}

/** `limit` (default 20, 1 to 100; checked by the validate stage) and `after` of a list request. */
export function listQuery(query: URLSearchParams): { limit: number; after?: string } {
  const limit = query.get('limit');
  return { limit: limit ? Number(limit) : 20, after: query.get('after') ?? undefined };
}

/** A list the provider does not paginate the contract's way, windowed here (items newest first). */
export function windowList<T extends { id: string }>(items: T[], query: URLSearchParams) {
  const { limit, after } = listQuery(query);
  let start = 0;
  if (after) {
    const at = items.findIndex((i) => i.id === after);
    start = at >= 0 ? at + 1 : items.length;
  }
  const data = items.slice(start, start + limit);
  return listBody(data, start + limit < items.length);
}
