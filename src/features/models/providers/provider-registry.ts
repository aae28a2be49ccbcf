import type { GatewayConfig } from '../../../generated/gateway.js';
import type { ProviderDefinition, ProviderInstance, ProviderSettings } from './provider.js';
import { ExtensionConfigError, ExtensionRegistry } from '../../../kernel/engine/extension.js';
import { declareSecretFields } from '../../../kernel/errors/redact.js';
import { declareProviderFields } from './shared/provider-fields.js';
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
  readonly definitions = new ExtensionRegistry<ProviderDefinition>('provider', undefined, undefined, 'providers');
  private readonly instances = new Map<string, ProviderInstance>();

  register(def: ProviderDefinition, origin = 'built-in'): void {
    this.definitions.register(def && typeof def === 'object' && def.description === undefined ? { ...def, description: def.displayName } : def, origin);
    declareFields(def);
  }

  /** Creates every provider; returns one problem line per bad `providers.<id>` entry. */
  instantiate(config: GatewayConfig): string[] {
    const problems: string[] = [];
    const settings = config.providers ?? {};
    for (const id of Object.keys(settings)) {
      if (!this.definitions.has(id)) problems.push(`providers.${id}: unknown provider (known: ${this.ids().join(', ')})`);
    }
    for (const def of this.definitions.all()) {
      // A plugin's provider is registered by the plugin loader: its settings are declared here.
      declareFields(def);
      let own: unknown;
      try {
        own = this.definitions.validate(def.name, settings[def.name] ?? {}, `providers.${def.name}`);
      } catch (err) {
        if (!(err instanceof ExtensionConfigError)) throw err;
        problems.push(...err.problems);
        continue;
      }
      const headerProblems = settingsProblems(def.name, own as ProviderSettings);
      if (headerProblems.length) {
        problems.push(...headerProblems);
        continue;
      }
      // Every upstream request is checked: caller values before it is built, its address after.
      this.instances.set(def.name, guardProvider(addChatTranslations(def.create(own as ProviderSettings))));
    }
    return problems;
  }

  get(id: string): ProviderInstance | undefined {
    return this.instances.get(id);
  }

  has(id: string): boolean {
    return this.definitions.has(id);
  }

  definition(id: string): ProviderDefinition | undefined {
    return this.definitions.get(id);
  }

  ids(): string[] {
    return this.definitions.names();
  }
}

/**
 * Makes a provider's declared settings known to the generic code that reads them (credential
 * headers, inheritance, config checks, the upstream guard) and its secret ones to the kernel's
 * redactor, config scan and logger.
 */
export function declareFields(def: ProviderDefinition): void {
  if (!def || typeof def !== 'object' || !Array.isArray(def.fields)) return;
  declareProviderFields(def.name, def.fields);
  declareSecretFields(def.fields.filter((f) => f.secret).map((f) => f.name));
}

/** The providers of this gateway (set up by the routing capability). */
export const PROVIDERS = defineService<ProviderRegistry>('providers');
