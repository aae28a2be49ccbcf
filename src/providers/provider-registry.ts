import type { GatewayConfig } from '../generated/gateway.js';
import type { ProviderDefinition, ProviderInstance } from './provider.js';
import { Ajv } from 'ajv';
import { describeErrors } from '../config/schema-validator.js';

/**
 * Providers by id. Definitions are registered (built-ins, then plugins), then `instantiate`
 * creates each one once with its `providers.<id>` settings, validated against its schema.
 */
export class ProviderRegistry {
  private readonly definitions = new Map<string, ProviderDefinition>();
  private readonly instances = new Map<string, ProviderInstance>();

  register(def: ProviderDefinition, origin = 'built-in'): void {
    if (!def?.name || typeof def.create !== 'function' || !def.schema) {
      throw new Error(`${origin}: a provider must be { name, schema, create(settings) }`);
    }
    if (this.definitions.has(def.name)) throw new Error(`${origin}: provider ${def.name} is already registered`);
    this.definitions.set(def.name, def);
  }

  /** Creates every provider; returns one problem line per bad `providers.<id>` entry. */
  instantiate(config: GatewayConfig): string[] {
    const problems: string[] = [];
    const settings = config.providers ?? {};
    for (const id of Object.keys(settings)) {
      if (!this.definitions.has(id)) problems.push(`providers.${id}: unknown provider (known: ${this.ids().join(', ')})`);
    }
    const ajv = new Ajv({ allErrors: true, strict: false });
    for (const def of this.definitions.values()) {
      const own = settings[def.name] ?? {};
      const validate = ajv.compile(def.schema);
      if (!validate(own)) {
        problems.push(...describeErrors(validate.errors, `providers.${def.name}`));
        continue;
      }
      this.instances.set(def.name, def.create(own));
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
    return [...this.definitions.keys()].sort();
  }
}
