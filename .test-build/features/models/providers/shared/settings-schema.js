import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
/** The repository (or package) root: the nearest folder above this module holding schema/providers/. */
function schemaFolder() {
    let dir = dirname(fileURLToPath(import.meta.url));
    for (;;) {
        if (existsSync(join(dir, 'schema', 'providers')))
            return join(dir, 'schema', 'providers');
        const parent = dirname(dir);
        if (parent === dir)
            throw new Error('schema/providers/ not found above the provider code');
        dir = parent;
    }
}
/** The settings schema of a provider (providers.<id>), from schema/providers/<name>.schema.json. */
export function providerSettingsSchema(name) {
    return JSON.parse(readFileSync(join(schemaFolder(), `${name}.schema.json`), 'utf8'));
}
//# sourceMappingURL=settings-schema.js.map