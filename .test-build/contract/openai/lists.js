/** The contract's list: `{"object":"list","data":[...],"has_more":bool}` (plus OpenAI's first/last ids). */
export function listBody(data, hasMore) {
    return { object: 'list', data, has_more: hasMore, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null };
}
/** `limit` (default 20, 1 to 100; checked by the validate stage) and `after` of a list request. */
export function listQuery(query) {
    const limit = query.get('limit');
    return { limit: limit ? Number(limit) : 20, after: query.get('after') ?? undefined };
}
/** A list the provider does not paginate the contract's way, windowed here (items newest first). */
export function windowList(items, query) {
    const { limit, after } = listQuery(query);
    let start = 0;
    if (after) {
        const at = items.findIndex((i) => i.id === after);
        start = at >= 0 ? at + 1 : items.length;
    }
    const data = items.slice(start, start + limit);
    return listBody(data, start + limit < items.length);
}
//# sourceMappingURL=lists.js.map