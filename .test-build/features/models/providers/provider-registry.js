import { ExtensionConfigError, ExtensionRegistry } from '../../../kernel/engine/extension.js';
import { defineService } from '../../../kernel/engine/services.js';
import { guardProvider, settingsProblems } from './shared/upstream-guard.js';
import { addChatTranslations } from '../translations.js';
/**
 * Providers by id. Definitions (the extension kind `provider`) are registered, built-ins then
 * plugins; `instantiate` then creates each one once with its `providers.<id>` settings,
 * validated against its schema, and gives each chat provider the Messages and Responses APIs
 * through its chat translation.
 */
export class ProviderRegistry {
    definitions = new ExtensionRegistry('provider');
    instances = new Map();
    register(def, origin = 'built-in') {
        this.definitions.register(def && typeof def === 'object' && def.description === undefined ? { ...def, description: def.displayName } : def, origin);
    }
    /** Creates every provider; returns one problem line per bad `providers.<id>` entry. */
    instantiate(config) {
        const problems = [];
        const settings = config.providers ?? {};
        for (const id of Object.keys(settings)) {
            if (!this.definitions.has(id))
                problems.push(`providers.${id}: unknown provider (known: ${this.ids().join(', ')})`);
        }
        for (const def of this.definitions.all()) {
            let own;
            try {
                own = this.definitions.validate(def.name, settings[def.name] ?? {}, `providers.${def.name}`);
            }
            catch (err) {
                if (!(err instanceof ExtensionConfigError))
                    throw err;
                problems.push(...err.problems);
                continue;
            }
            const headerProblems = settingsProblems(def.name, own);
            if (headerProblems.length) {
                problems.push(...headerProblems);
                continue;
            }
            // Every upstream request is checked: caller values before it is built, its address after.
            this.instances.set(def.name, guardProvider(addChatTranslations(def.create(own))));
        }
        return problems;
    }
    get(id) {
        return this.instances.get(id);
    }
    has(id) {
        return this.definitions.has(id);
    }
    definition(id) {
        return this.definitions.get(id);
    }
    ids() {
        return this.definitions.names();
    }
}
/** The providers of this gateway (set up by the routing capability). */
export const PROVIDERS = defineService('providers');
//# sourceMappingURL=provider-registry.js.map