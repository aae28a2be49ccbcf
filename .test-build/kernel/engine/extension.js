import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { describeErrors } from '../config/schema-validator.js';
const addFormats = addFormatsModule;
const NAME = /^[a-z][a-z0-9-]*$/;
/** A failed config check: one line per problem, each naming its key path. */
export class ExtensionConfigError extends Error {
    problems;
    constructor(problems) {
        super(problems.join('; '));
        this.problems = problems;
        this.name = 'ExtensionConfigError';
    }
}
/**
 * The definitions of one kind by name. `register` checks the shape (a name of lower-case words,
 * a schema object, a factory) and refuses a name taken twice; `validate` checks a config against
 * the definition's schema (filling in defaults), with each schema compiled once.
 */
export class ExtensionRegistry {
    kind;
    checkShape;
    namePattern;
    definitions = new Map();
    validators = new Map();
    ajv;
    constructor(
    /** The kind, as plugins name it: stage, guardrail-check, provider, auth-mode. */
    kind, 
    /** Extra checks of a definition of this kind (messages without the origin). */
    checkShape, namePattern = NAME) {
        this.kind = kind;
        this.checkShape = checkShape;
        this.namePattern = namePattern;
    }
    register(def, origin = 'built-in') {
        if (!def || typeof def !== 'object')
            throw new Error(`${origin}: a ${this.kind} must be an object { name, schema, create }`);
        if (typeof def.name !== 'string' || !this.namePattern.test(def.name)) {
            throw new Error(`${origin}: ${this.kind} name must be lower-case words joined by '-' (got ${JSON.stringify(def.name)})`);
        }
        if (typeof def.create !== 'function')
            throw new Error(`${origin}: ${this.kind} ${def.name} has no create(config) factory`);
        if (!def.schema || typeof def.schema !== 'object')
            throw new Error(`${origin}: ${this.kind} ${def.name} has no config schema`);
        const problem = this.checkShape?.(def);
        if (problem)
            throw new Error(`${origin}: ${this.kind} ${def.name} ${problem}`);
        if (this.definitions.has(def.name))
            throw new Error(`${origin}: a ${this.kind} named ${def.name} is already registered`);
        this.definitions.set(def.name, def);
    }
    get(name) {
        return this.definitions.get(name);
    }
    has(name) {
        return this.definitions.has(name);
    }
    names() {
        return [...this.definitions.keys()].sort();
    }
    all() {
        return [...this.definitions.values()];
    }
    /**
     * Checks `config` against the schema of `name` (defaults filled into a copy, which is
     * returned); throws ExtensionConfigError with lines prefixed by `path`.
     */
    validate(name, config, path) {
        const def = this.definitions.get(name);
        if (!def)
            throw new ExtensionConfigError([`${path}: unknown ${this.kind} "${name}" (known: ${this.names().join(', ')})`]);
        let validate = this.validators.get(name);
        if (!validate) {
            this.ajv ??= addFormats(new Ajv({ allErrors: true, strict: false, useDefaults: true, allowUnionTypes: true }));
            try {
                validate = this.ajv.compile(def.schema);
            }
            catch (err) {
                throw new ExtensionConfigError([`${path}: the ${this.kind}'s own schema is invalid: ${err.message}`]);
            }
            this.validators.set(name, validate);
        }
        const copy = structuredClone(config ?? {});
        if (!validate(copy))
            throw new ExtensionConfigError(describeErrors(validate.errors, path));
        return copy;
    }
}
/** The registries of every extension kind, by the kind's name; plugins register into them by `kind`. */
export class ExtensionKinds {
    kinds = new Map();
    add(registry) {
        if (this.kinds.has(registry.kind))
            throw new Error(`the extension kind ${registry.kind} is already known`);
        this.kinds.set(registry.kind, registry);
        return registry;
    }
    get(kind) {
        return this.kinds.get(kind);
    }
    names() {
        return [...this.kinds.keys()].sort();
    }
}
//# sourceMappingURL=extension.js.map