import { badRequest } from '../../../contract/errors/gateway-error.js';

/** `limit` (default 20, 1 to 100) and `after` of an admin list request; a 400 naming a bad one. */
export function adminListQuery(query: URLSearchParams): { limit: number; after?: string } {
  const limit = query.get('limit');
  if (limit !== null && (!/^\d{1,3}$/.test(limit) || Number(limit) < 1 || Number(limit) > 100)) {
    throw badRequest('limit must be an integer from 1 to 100.', 'limit');
  }
  const after = query.get('after');
  return { limit: limit === null ? 20 : Number(limit), after: after || undefined };
}

/** The contract's list of `items` (already in order) from the one after `after` on. */
export function pageOf<T extends { id: string }>(items: T[], query: URLSearchParams): { object: 'list'; data: T[]; has_more: boolean } {
  const { limit, after } = adminListQuery(query);
  let start = 0;
  if (after !== undefined) {
    const at = items.findIndex((i) => i.id === after);
    if (at < 0) throw badRequest(`after: no object with id ${after} in this list.`, 'after');
    start = at + 1;
  }
  return { object: 'list', data: items.slice(start, start + limit), has_more: start + limit < items.length };
}
