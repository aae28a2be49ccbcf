import { headerValue } from '../../../kernel/engine/context.js';
import { badRequest } from '../../../contract/errors/gateway-error.js';
import { describeErrors, validatorFor } from '../../../kernel/config/schema-validator.js';
import { compilePlan, PlanError } from './compile-plan.js';
import { LruMap } from '../../../kernel/lru.js';
const HEADER = 'x-gateway-config';
const HEADER_PLANS = 256;
/**
 * Where a request's routing config comes from: the x-gateway-config header (a JSON object,
 * validated and compiled per distinct header value, kept in a small LRU) or the name of a
 * config under `configs.<name>` (compiled once at start-up), else routing.defaultConfig.
 */
export class RoutingConfigs {
    env;
    named = new Map();
    /** Header text -> its plan, or the 400 message it earns. */
    fromHeaders = new LruMap(HEADER_PLANS);
    validate;
    defaultName;
    /** Throws PlanError with `configs.<name>.<path>: ...` lines when a named config is unusable. */
    constructor(config, env) {
        this.env = env;
        this.validate = validatorFor('routing.schema.json');
        this.defaultName = config.routing?.defaultConfig;
        const problems = [];
        for (const [name, raw] of Object.entries(config.configs ?? {})) {
            try {
                this.named.set(name, compilePlan(raw, env));
            }
            catch (err) {
                if (!(err instanceof PlanError))
                    throw err;
                for (const line of err.problems)
                    problems.push(`configs.${name}.${line}`);
            }
        }
        if (this.defaultName && !this.named.has(this.defaultName) && !problems.length) {
            problems.push(`routing.defaultConfig: names no config under configs (${this.defaultName})`);
        }
        if (problems.length)
            throw new PlanError(problems);
    }
    /** Whether `name` is a config under configs. */
    has(name) {
        return this.named.has(name);
    }
    /**
     * The plan for this request, or undefined when it has no routing config. 400 for a bad header.
     * `defaultName` (a pipeline's own default) replaces routing.defaultConfig.
     */
    planFor(ctx, defaultName = this.defaultName) {
        const header = headerValue(ctx.headers, HEADER)?.trim();
        if (!header)
            return defaultName ? this.named.get(defaultName) : undefined;
        if (header.startsWith('{')) {
            let plan = this.fromHeaders.get(header);
            if (plan === undefined) {
                plan = this.compileHeader(header);
                this.fromHeaders.set(header, plan);
            }
            if (typeof plan === 'string')
                throw badRequest(plan, HEADER);
            return plan;
        }
        const plan = this.named.get(header);
        if (!plan) {
            const names = [...this.named.keys()];
            throw badRequest(`${HEADER}: no config named "${header}"${names.length ? ` (configs: ${names.join(', ')})` : ''}; send a JSON object or the name of a config.`, HEADER);
        }
        return plan;
    }
    compileHeader(text) {
        let parsed;
        try {
            parsed = JSON.parse(text);
        }
        catch (err) {
            // The parser's message quotes the text (keys included): only the position is told.
            const at = /position (\d+)/.exec(err.message)?.[1];
            return `${HEADER}: is not valid JSON${at ? ` (at position ${at})` : ''}`;
        }
        if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
            return `${HEADER}: must be a JSON object`;
        if (!this.validate(parsed))
            return describeErrors(this.validate.errors).map((line) => `${HEADER}: ${line}`).join('; ');
        try {
            return compilePlan(parsed, this.env);
        }
        catch (err) {
            if (err instanceof PlanError)
                return err.problems.map((line) => `${HEADER}: ${line}`).join('; ');
            throw err;
        }
    }
}
//# sourceMappingURL=config-source.js.map