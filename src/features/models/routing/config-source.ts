import type { ValidateFunction } from 'ajv';
import type { GatewayContext } from '../../../kernel/engine/context.js';
import { headerValue } from '../../../kernel/engine/context.js';
import type { RoutingTarget } from '../../../generated/routing.js';
import type { GatewayConfig } from '../../../generated/gateway.js';
import { badRequest } from '../../../contract/errors/gateway-error.js';
import { describeErrors, validatorFor } from '../../../kernel/config/schema-validator.js';
import { compilePlan, PlanError, type PlanEnvironment } from './compile-plan.js';
import type { CompiledPlan } from './plan.js';
import { LruMap } from '../../../kernel/lru.js';

const HEADER = 'x-gateway-config';
const HEADER_PLANS = 256;

/**
 * Where a request's routing config comes from: the x-gateway-config header (a JSON object,
 * validated and compiled per distinct header value, kept in a small LRU) or the name of a
 * config under `configs.<name>` (compiled once at start-up), else routing.defaultConfig when the
 * request names no provider.
 */
export class RoutingConfigs {
  private readonly named = new Map<string, CompiledPlan>();
  /** Header text -> its plan, or the 400 message it earns. */
  private readonly fromHeaders = new LruMap<string, CompiledPlan | string>(HEADER_PLANS);
  private readonly validate: ValidateFunction;
  private readonly defaultName?: string;

  /** Throws PlanError with `configs.<name>.<path>: ...` lines when a named config is unusable. */
  constructor(
    config: GatewayConfig,
    private readonly env: PlanEnvironment,
  ) {
    this.validate = validatorFor('routing.schema.json');
    this.defaultName = config.routing?.defaultConfig;
    const problems: string[] = [];
    for (const [name, raw] of Object.entries(config.configs ?? {})) {
      try {
        this.named.set(name, { ...compilePlan(raw as RoutingTarget, env, 'operator'), name });
      } catch (err) {
        if (!(err instanceof PlanError)) throw err;
        for (const line of err.problems) problems.push(`configs.${name}.${line}`);
      }
    }
    if (this.defaultName && !this.named.has(this.defaultName) && !problems.length) {
      problems.push(`routing.defaultConfig: names no config under configs (${this.defaultName})`);
    }
    if (problems.length) throw new PlanError(problems);
  }

  /** Whether `name` is a config under configs. */
  has(name: string): boolean {
    return this.named.has(name);
  }

  /**
   * The plan for this request, or undefined when it has no routing config. 400 for a bad header.
   * `defaultName` (a pipeline's own default) replaces routing.defaultConfig. A default applies
   * only to requests that name no provider: x-gateway-provider wins over it.
   */
  planFor(ctx: GatewayContext, defaultName = this.defaultName): CompiledPlan | undefined {
    const header = headerValue(ctx.headers, HEADER)?.trim();
    if (!header) return defaultName && !headerValue(ctx.headers, 'x-gateway-provider')?.trim() ? this.named.get(defaultName) : undefined;
    if (header.startsWith('{')) {
      const plan = this.headerPlan(header);
      if (typeof plan === 'string') throw badRequest(plan, HEADER);
      return plan;
    }
    const plan = this.named.get(header);
    // The operator's config names are not the caller's to learn: none is listed.
    if (!plan) throw badRequest(`${HEADER}: no config named ${JSON.stringify(header.slice(0, 64))}; send a JSON object or the name of a config.`, HEADER);
    return plan;
  }

  /**
   * The provider keys (`api_key`) of the request's own routing config (an x-gateway-config
   * JSON object), which `per: key` rate limits count; undefined for a named config (the
   * operator's keys), no config, or a header that does not compile (the route stage answers
   * that with its 400). The plan compiled here is the one the route stage then uses.
   */
  callerKeys(ctx: GatewayContext): readonly string[] | undefined {
    const header = headerValue(ctx.headers, HEADER)?.trim();
    if (!header?.startsWith('{')) return undefined;
    const plan = this.headerPlan(header);
    return typeof plan === 'string' ? undefined : plan.callerKeys;
  }

  /** A header config's plan, or the 400 message it earns (compiled once per distinct text). */
  private headerPlan(header: string): CompiledPlan | string {
    let plan = this.fromHeaders.get(header);
    if (plan === undefined) {
      plan = this.compileHeader(header);
      this.fromHeaders.set(header, plan);
    }
    return plan;
  }

  private compileHeader(text: string): CompiledPlan | string {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (err) {
      // The parser's message quotes the text (keys included): only the position is told.
      const at = /position (\d+)/.exec((err as Error).message)?.[1];
      return `${HEADER}: is not valid JSON${at ? ` (at position ${at})` : ''}`;
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return `${HEADER}: must be a JSON object`;
    if (!this.validate(parsed))
      return describeErrors(this.validate.errors)
        .map((line) => `${HEADER}: ${line}`)
        .join('; ');
    try {
      return compilePlan(parsed as RoutingTarget, this.env, 'caller');
    } catch (err) {
      if (err instanceof PlanError) return err.problems.map((line) => `${HEADER}: ${line}`).join('; ');
      throw err;
    }
  }
}
