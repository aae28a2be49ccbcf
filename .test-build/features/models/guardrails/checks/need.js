/** The problem line of a setting a check cannot work without (pushed to `problems`), or none. */
export function need(config, key, type, what, path, problems) {
    if (config[key] !== undefined)
        return true;
    problems.push(`${path}.${key}: is required for a ${type} check (${what})`);
    return false;
}
//# sourceMappingURL=need.js.map