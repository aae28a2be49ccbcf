import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { describeErrors, precompiledExtensionValidator } from '../config/schema-validator.js';
import { EXTENSION_AJV_OPTIONS } from '../config/ajv-options.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/**
 * The one shape of every extension unit (stage, guardrail check, provider, auth mode), built in
 * or from a plugin: a name, a description, the JSON Schema of its config, and a factory that
 * makes what the kind needs from a validated config. Configs are validated against `schema`
 * when the gateway compiles its pipelines and configs, never per request.
 */
export interface ExtensionDefinition<Config = unknown, Made = unknown, Env = unknown> {
  name: string;
  description?: string;
  schema: Record<string, unknown>;
  create(config: Config, env: Env): Made;
}

const NAME = /^[a-z][a-z0-9-]*$/;

/** A failed config check: one line per problem, each naming its key path. */
export class ExtensionConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('; '));
    this.name = 'ExtensionConfigError';
  }
}

/**
 * The definitions of one kind by name. `register` checks the shape (a name of lower-case words,
 * a schema object, a factory) and refuses a name taken twice; `validate` checks a config against
 * the definition's schema (filling in defaults), with each schema compiled once.
 */
export class ExtensionRegistry<D extends ExtensionDefinition = ExtensionDefinition> {
  private readonly definitions = new Map<string, D>();
  private readonly validators = new Map<string, ValidateFunction>();
  private ajv: Ajv | undefined;

  constructor(
    /** The kind, as plugins name it (stage, and the kinds features add). */
    readonly kind: string,
    /** Extra checks of a definition of this kind (messages without the origin). */
    private readonly checkShape?: (def: D) => string | undefined,
    private readonly namePattern: RegExp = NAME,
    /** The export a plugin module may list definitions of this kind under (`stages`, `providers`...). */
    readonly list?: string,
  ) {}

  register(def: D, origin = 'built-in'): void {
    if (!def || typeof def !== 'object') throw new Error(`${origin}: a ${this.kind} must be an object { name, schema, create }`);
    if (typeof def.name !== 'string' || !this.namePattern.test(def.name)) {
      throw new Error(`${origin}: ${this.kind} name must be lower-case words joined by '-' (got ${JSON.stringify(def.name)})`);
    }
    if (typeof def.create !== 'function') throw new Error(`${origin}: ${this.kind} ${def.name} has no create(config) factory`);
    if (!def.schema || typeof def.schema !== 'object') throw new Error(`${origin}: ${this.kind} ${def.name} has no config schema`);
    const problem = this.checkShape?.(def);
    if (problem) throw new Error(`${origin}: ${this.kind} ${def.name} ${problem}`);
    if (this.definitions.has(def.name)) throw new Error(`${origin}: a ${this.kind} named ${def.name} is already registered`);
    this.definitions.set(def.name, def);
  }

  get(name: string): D | undefined {
    return this.definitions.get(name);
  }

  has(name: string): boolean {
    return this.definitions.has(name);
  }

  names(): string[] {
    return [...this.definitions.keys()].sort();
  }

  all(): D[] {
    return [...this.definitions.values()];
  }

  /**
   * Checks `config` against the schema of `name` (defaults filled into a copy, which is
   * returned); throws ExtensionConfigError with lines prefixed by `path`.
   */
  validate(name: string, config: unknown, path: string): unknown {
    const def = this.definitions.get(name);
    if (!def) throw new ExtensionConfigError([`${path}: unknown ${this.kind} "${name}" (known: ${this.names().join(', ')})`]);
    let validate = this.validators.get(name);
    if (!validate) {
      // A built-in's schema was compiled by the build; a plugin's is compiled here, once.
      validate = precompiledExtensionValidator(def.schema);
      if (!validate) {
        this.ajv ??= addFormats(new Ajv({ ...EXTENSION_AJV_OPTIONS }));
        try {
          validate = this.ajv.compile(def.schema);
        } catch (err) {
          throw new ExtensionConfigError([`${path}: the ${this.kind}'s own schema is invalid: ${(err as Error).message}`]);
        }
      }
      this.validators.set(name, validate);
    }
    const copy = structuredClone(config ?? {});
    if (!validate(copy)) throw new ExtensionConfigError(describeErrors(validate.errors, path));
    return copy;
  }
}

/**
 * A registry of some kind, as ExtensionKinds holds it: the plugin loader hands it definitions
 * straight from a module, which `register` checks (the shape, the kind's own rules).
 */
export interface KindRegistry {
  readonly kind: string;
  /** The export a plugin module may list definitions of this kind under. */
  readonly list?: string;
  register(def: unknown, origin?: string): void;
  names(): string[];
}

/** The registries of every extension kind, by the kind's name; plugins register into them by `kind`. */
export class ExtensionKinds {
  private readonly kinds = new Map<string, KindRegistry>();

  add<R extends KindRegistry>(registry: R): R {
    if (this.kinds.has(registry.kind)) throw new Error(`the extension kind ${registry.kind} is already known`);
    this.kinds.set(registry.kind, registry);
    return registry;
  }

  get(kind: string): KindRegistry | undefined {
    return this.kinds.get(kind);
  }

  names(): string[] {
    return [...this.kinds.keys()].sort();
  }

  /** The export lists a plugin module may hold definitions in, each with its kind. */
  lists(): Array<[list: string, kind: string]> {
    return [...this.kinds.values()]
      .filter((r) => r.list !== undefined)
      .map((r): [string, string] => [r.list!, r.kind])
      .sort(([a], [b]) => (a < b ? -1 : 1));
  }
}
