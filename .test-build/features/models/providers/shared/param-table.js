function setPath(out, path, value) {
    let node = out;
    for (let i = 0; i < path.length - 1; i++) {
        const key = path[i];
        if (node[key] === undefined || typeof node[key] !== 'object')
            node[key] = {};
        node = node[key];
    }
    node[path[path.length - 1]] = value;
}
export function compileParamTable(table, options = {}) {
    const setters = [];
    const named = new Set(Object.keys(table));
    for (const [field, spec] of Object.entries(table)) {
        if (spec === false)
            continue;
        const rule = typeof spec === 'string' ? { to: spec } : spec;
        const path = (rule.to ?? field).split('.');
        setters.push((out, request) => {
            let value = rule.compute ? rule.compute(request) : request[field];
            if (rule.compute) {
                if (value === undefined)
                    return;
            }
            else if (value === undefined || value === null) {
                if (rule.default === undefined)
                    return;
                value = typeof rule.default === 'function' ? rule.default(request) : rule.default;
                if (value === undefined)
                    return;
            }
            else if (rule.transform) {
                value = rule.transform(value, request);
                if (value === undefined)
                    return;
            }
            if (typeof value === 'number') {
                if (rule.min !== undefined && value < rule.min)
                    value = rule.min;
                if (rule.max !== undefined && value > rule.max)
                    value = rule.max;
            }
            setPath(out, path, value);
        });
    }
    const unknownPath = options.unknownTo?.split('.');
    const passUnknown = (options.passUnknown ?? false) || unknownPath !== undefined;
    return (request) => {
        const out = {};
        if (passUnknown) {
            for (const key of Object.keys(request)) {
                if (named.has(key) || request[key] === undefined)
                    continue;
                if (unknownPath)
                    setPath(out, [...unknownPath, key], request[key]);
                else
                    out[key] = request[key];
            }
        }
        for (const set of setters)
            set(out, request);
        return out;
    };
}
//# sourceMappingURL=param-table.js.map