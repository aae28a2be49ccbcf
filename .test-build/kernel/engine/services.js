let nextService = 0;
/** Defines a service slot; define each once, beside the code that provides the service. */
export function defineService(name) {
    return Object.freeze({ name, index: nextService++ });
}
/**
 * Long-lived parts shared by every pipeline, built once at start-up and handed to each stage
 * factory: the config, logging and metrics, the upstream HTTP client, the registries of every
 * extension kind, readiness checks and closers, and typed services the capabilities provide.
 */
export class GatewayServices {
    config;
    logger;
    metrics;
    upstream;
    kinds;
    mapError;
    /** Named readiness checks for /ready; all must be true. */
    readiness = new Map();
    /** Called at shutdown, last registered first. */
    closers = [];
    provided = [];
    constructor(config, logger, metrics, upstream, kinds, 
    /** How any failure becomes an answerable error (the contract's catalogue, given by the composition root). */
    mapError) {
        this.config = config;
        this.logger = logger;
        this.metrics = metrics;
        this.upstream = upstream;
        this.kinds = kinds;
        this.mapError = mapError;
    }
    /** The registry of stages (the extension kind `stage`). */
    get stages() {
        return this.kinds.get('stage');
    }
    provide(slot, value) {
        this.provided[slot.index] = value;
        return value;
    }
    get(slot) {
        return this.provided[slot.index];
    }
    has(slot) {
        return this.provided[slot.index] !== undefined;
    }
    /** The service, or an error naming it (a capability it depends on is not set up). */
    require(slot) {
        const value = this.provided[slot.index];
        if (value === undefined)
            throw new Error(`the ${slot.name} service is not set up`);
        return value;
    }
    /** The service, made by `make` on first use. */
    once(slot, make) {
        const value = this.provided[slot.index];
        if (value !== undefined)
            return value;
        return this.provide(slot, make());
    }
}
//# sourceMappingURL=services.js.map