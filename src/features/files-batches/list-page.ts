import { notFound } from '../../contract/errors/gateway-error.js';
import type { SqlStore } from '../../kernel/store/sql-store.js';

export { listBody, listQuery } from '../../contract/openai/lists.js';

export interface Page<T> {
  rows: T[];
  hasMore: boolean;
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
    rows = await store.query<T>(`SELECT * FROM ${table} WHERE scope = ? AND (created_ms < ? OR (created_ms = ? AND id < ?)) ORDER BY created_ms DESC, id DESC LIMIT ?`, [
      scope,
      ms,
      ms,
      after,
      limit + 1,
    ]);
  } else {
    rows = await store.query<T>(`SELECT * FROM ${table} WHERE scope = ? ORDER BY created_ms DESC, id DESC LIMIT ?`, [scope, limit + 1]);
  }
  return { rows: rows.slice(0, limit).map(normalize), hasMore: rows.length > limit };
}
