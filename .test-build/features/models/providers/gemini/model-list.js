export function modelList(models, ownedBy, hasMore) {
    const data = (Array.isArray(models) ? models : [])
        .filter((m) => typeof m?.name === 'string')
        .map((m) => ({ id: m.name.replace(/^(publishers\/[^/]+\/)?models\//, ''), object: 'model', created: 0, owned_by: ownedBy }));
    return { object: 'list', data, has_more: hasMore };
}
//# sourceMappingURL=model-list.js.map