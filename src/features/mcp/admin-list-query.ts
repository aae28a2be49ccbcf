import { badRequest } from '../../contract/errors/gateway-error.js';

/** The paging of an admin list of the tool servers: `limit` (1 to 100, default 20), `after` (a name), `search` (a part of a name, any case). */
export interface AdminListQuery {
  limit: number;
  after: string | undefined;
  /** Lower-cased; undefined when absent or empty. */
  search: string | undefined;
}

/** Reads `limit`, `after` and `search` of an admin list; a 400 naming any other parameter, or a `limit` out of range. */
export function adminListQuery(query: URLSearchParams): AdminListQuery {
  for (const name of query.keys()) if (!['limit', 'after', 'search'].includes(name)) throw badRequest(`Unknown query parameter ${name.slice(0, 64)}.`, name.slice(0, 64));
  const limitText = query.get('limit');
  if (limitText !== null && (!/^\d{1,3}$/.test(limitText) || Number(limitText) < 1 || Number(limitText) > 100))
    throw badRequest('limit must be an integer from 1 to 100.', 'limit');
  return {
    limit: limitText === null ? 20 : Number(limitText),
    after: query.get('after') || undefined,
    search: query.get('search')?.toLowerCase() || undefined,
  };
}
