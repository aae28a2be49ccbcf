import type { GatewayContext } from '../../../kernel/engine/context.js';
import { UPSTREAM } from '../../../kernel/engine/report.js';
import type { GatewayServices } from '../../../kernel/engine/services.js';
import { PARENT_SPAN, TRACING } from '../../../kernel/engine/tracing.js';
import type { TraceSpan, Tracing } from '../../../kernel/observability/tracing.js';
import { badRequest, forbidden, GatewayError, internalError, modelNotFound } from '../../../contract/errors/gateway-error.js';
import { normalizeError } from '../../../contract/errors/normalize.js';
import type { ResolvedTarget } from '../providers/provider.js';
import type { ProviderRegistry } from '../providers/provider-registry.js';
import { ATTEMPTS, DEADLINE, PROVIDER, PROVIDER_KEY, TARGET } from '../model-request.js';
import { providerOptionsFrom } from './provider-credentials.js';
import { carriesGatewayCredential, HELD_CREDENTIALS, markHeldKey, type HeldCredentialSource } from './held-credentials.js';
import { BODY } from '../../../kernel/engine/request-body.js';
import { namesItsModel, type RouteSpec } from '../../../contract/routes.js';
import { recordAttempt, recordCircuitSkip } from './attempts.js';
import { BreakerOpen, BreakerRegistry } from './breakers.js';
import type { ConditionInput } from './conditions.js';
import { callerGone, callerGoneError, CircuitOpenError, countsForBreaker, deadlineError, deadlinePassed, uploadSpent, isCircuitOpen, isRoutingFailure } from './failure.js';
import type { CompiledPlan, PlanNode } from './plan.js';
import { weightedOrder } from './weighted.js';
import { configuredDeadlines } from './deadline-defaults.js';

/** Per-request state of one plan run. */
interface Run {
  ctx: GatewayContext;
  /** The provider the request's own key belongs to (x-gateway-provider, else the config's first). */
  keyOwner?: string;
  next: () => Promise<void>;
  headerOptions?: Record<string, unknown>;
  conditionInput?: ConditionInput;
  /** The plan nodes whose secrets the request's redaction has (made when a node with secrets is first resolved). */
  secretsAdded?: Set<PlanNode>;
  /** How circuits of this run's targets are labelled: `<config name>:` + index, `caller` or `header`. */
  circuitScope: string;
  /** Who wrote the plan run (undefined for a single target from the headers). */
  planOrigin?: 'caller' | 'operator';
  /** Whether the plan is an operator's named config (configs.<name>), not a catalogue model's. */
  namedConfig?: boolean;
}

function toGatewayError(err: unknown, provider?: string): GatewayError {
  return err instanceof GatewayError ? err : normalizeError(err, provider);
}

/**
 * Runs a request through a compiled plan: picks targets by each group's strategy, calls the
 * rest of the pipeline (`next`) once per target attempt with the TARGET slot set, and decides
 * after each failure whether another target may be tried. No new attempt starts once the
 * caller has gone or the request's deadline has passed.
 */
export class PlanRunner {
  private readonly providers: ProviderRegistry;
  /** Targets resolved without the key they would need (-> why: a 401, or the error to answer), sending nothing. */
  private readonly refused = new WeakMap<ResolvedTarget, string | GatewayError>();

  constructor(
    private readonly services: GatewayServices,
    private readonly breakers: BreakerRegistry | undefined,
    providers: ProviderRegistry,
  ) {
    this.providers = providers;
    this.tracing = services.get(TRACING);
    this.held = services.get(HELD_CREDENTIALS);
    const defaults = configuredDeadlines(services.config);
    this.defaultFirstByte = defaults.firstByteTimeout;
    this.defaultIdle = defaults.idleTimeout;
  }

  /** routing.defaults' first_byte_timeout / idle_timeout when it sets them: given to every target that sets none (see configuredDeadlines). */
  private readonly defaultFirstByte: number | undefined;
  private readonly defaultIdle: number | undefined;

  /** The credentials the gateway holds (credential: <name> targets). */
  private readonly held: HeldCredentialSource | undefined;

  /** Set when traces are exported: each target attempt is a span. */
  private readonly tracing: Tracing | undefined;

  /** Runs a routing config's plan; `conditionInput` is what its conditions test (read by the route stage). */
  run(ctx: GatewayContext, plan: CompiledPlan, conditionInput: ConditionInput | undefined, next: () => Promise<void>): Promise<void> {
    if (plan.requestTimeout !== undefined) {
      const deadline = ctx.startedAt + plan.requestTimeout;
      const current = ctx.get(DEADLINE);
      ctx.set(DEADLINE, current === undefined ? deadline : Math.min(current, deadline));
    }
    const run: Run = {
      ctx,
      next,
      conditionInput,
      keyOwner: ctx.get(PROVIDER) ?? plan.firstProvider,
      circuitScope: plan.name !== undefined ? `${plan.name}:` : 'caller',
      planOrigin: plan.origin,
      namedConfig: plan.origin === 'operator' && plan.name !== undefined,
    };
    return this.runNode(plan.root, run);
  }

  /** One target named by the request headers (no routing config). */
  runSingle(ctx: GatewayContext, target: ResolvedTarget, next: () => Promise<void>): Promise<void> {
    return this.attempt(target, { ctx, next, circuitScope: 'header' });
  }

  private order(node: PlanNode, run: Run): number[] {
    const children = node.children!;
    switch (node.mode) {
      case 'single':
        return [0];
      case 'fallback':
        return children.map((_, i) => i);
      case 'loadbalance':
        return weightedOrder(children.map((c) => c.weight));
      case 'conditional': {
        const input = run.conditionInput!;
        const hit = node.conditions!.find((c) => c.test(input));
        if (hit) return [hit.child];
        if (node.defaultChild !== undefined) return [node.defaultChild];
        throw badRequest(`x-gateway-config: ${node.path ? `${node.path}.` : ''}strategy: no condition matched this request and the config has no default.`, 'x-gateway-config');
      }
    }
  }

  /** After a child failed with `err`, may the group try its next child? */
  private movesOn(node: PlanNode, err: GatewayError): boolean {
    if (node.mode === 'fallback') return isRoutingFailure(err, node.onStatusCodes);
    if (node.mode === 'loadbalance') return node.onStatusCodes !== undefined && isRoutingFailure(err, node.onStatusCodes);
    return false;
  }

  /** A target's attempt (a leaf: no frame of its own), or a group's strategy. */
  private runNode(node: PlanNode, run: Run): Promise<void> {
    if (node.children) return this.runGroup(node, run);
    try {
      return this.attempt(this.resolveLeaf(node, run), run);
    } catch (err) {
      return Promise.reject(err as Error);
    }
  }

  private async runGroup(node: PlanNode, run: Run): Promise<void> {
    const children = node.children!;
    let last: GatewayError | undefined;
    let open: CircuitOpenError | undefined;
    for (const i of this.order(node, run)) {
      if (last && (callerGone(run.ctx) || deadlinePassed(run.ctx))) break;
      try {
        await this.runNode(children[i]!, run);
        return;
      } catch (err) {
        if (isCircuitOpen(err)) {
          open = pickSooner(open, err);
          continue;
        }
        const failure = toGatewayError(err, run.ctx.get(TARGET)?.provider);
        last = failure;
        if (callerGone(run.ctx) || uploadSpent(run.ctx) || !this.movesOn(node, failure)) throw failure;
      }
    }
    if (last) throw last;
    throw open ?? new CircuitOpenError('Every target of this request has its circuit open.');
  }

  private resolveLeaf(node: PlanNode, run: Run): ResolvedTarget {
    const ctx = run.ctx;
    const s = node.settings;
    const provider = s.provider ?? ctx.get(PROVIDER);
    if (!provider) {
      throw badRequest(
        `x-gateway-config: ${node.path ? `${node.path}.` : ''}provider: this target has no provider (set provider on it or a parent, or send x-gateway-provider).`,
        'x-gateway-config',
      );
    }
    if (node.secrets.length > 0 && !(run.secretsAdded ??= new Set()).has(node)) {
      run.secretsAdded.add(node);
      ctx.secrets.push(...node.secrets);
    }
    run.headerOptions ??= providerOptionsFrom(ctx);
    const target: ResolvedTarget = {
      provider,
      apiKey: s.apiKey,
      options: { ...run.headerOptions, ...s.options },
      index: node.index,
    };
    if (s.credential !== undefined) {
      this.useCredential(target, s.credential, node, run);
    } else if (node.heldSecrets && !carriesGatewayCredential(ctx)) {
      // The operator's key or cloud secrets (configs.<name>) serve only gateway-credentialed requests.
      target.apiKey = undefined;
      this.refused.set(target, `No API key for ${provider}: the key this config holds is used only for requests that bring a gateway credential (x-gateway-token).`);
    } else {
      // The operator's own key or cloud secrets (configs.<name>, models.<name>) are held keys too.
      if (node.heldSecrets) {
        const refusal = this.operatorKeyRefusal(run, provider, node);
        if (refusal) this.refused.set(target, refusal);
        markHeldKey(target);
      }
      if (s.apiKey === undefined) this.resolveKey(target, node, run);
    }
    if (s.customHost !== undefined) target.baseUrl = s.customHost;
    if (node.callerHost) target.callerHost = true;
    if (s.overrideParams !== undefined) target.overrideParams = s.overrideParams;
    if (s.forwardHeaders !== undefined) target.forwardHeaders = s.forwardHeaders;
    if (s.retry !== undefined) target.retry = s.retry;
    if (s.requestTimeout !== undefined) target.requestTimeout = s.requestTimeout;
    if (s.firstByteTimeout !== undefined) target.firstByteTimeout = s.firstByteTimeout;
    if (s.idleTimeout !== undefined) target.idleTimeout = s.idleTimeout;
    if (s.inputGuardrails !== undefined) target.inputGuardrails = s.inputGuardrails;
    if (s.outputGuardrails !== undefined) target.outputGuardrails = s.outputGuardrails;
    if (s.cache !== undefined) target.cache = s.cache;
    return target;
  }

  /**
   * A target that names a held credential: its key and settings (the caller's x-gateway-*
   * settings never mix in, nor, in a caller's config, the caller's own target fields), only for
   * a request whose gateway key may use it, and never toward an address the caller chose.
   */
  private useCredential(target: ResolvedTarget, name: string, node: PlanNode, run: Run): void {
    const provider = target.provider;
    target.credential = name;
    const held = this.held?.get(name);
    if (!held) {
      this.refused.set(target, `No API key for ${provider}: the gateway holds no credential named "${name}" (any more).`);
      return;
    }
    if (node.callerHost) {
      this.refused.set(target, `No API key for ${provider}: credential "${name}" never goes to an address the request chose.`);
      return;
    }
    if (!carriesGatewayCredential(run.ctx) || !this.held!.mayUse(run.ctx, name)) {
      this.refused.set(target, `No API key for ${provider}: credential "${name}" is used only for requests with a gateway key allowed to use it.`);
      return;
    }
    if (run.planOrigin !== 'operator' || run.namedConfig) {
      // A caller's own config, or an operator's named one, gets no more of the credential than the catalogue models its key may use.
      const refusal = this.modelRefusal(run.ctx, node, `credential "${name}"`, (model) => this.held!.mayUseForModel(run.ctx, name, model));
      if (refusal) {
        this.refused.set(target, refusal);
        return;
      }
    }
    markHeldKey(target);
    target.apiKey = held.apiKey;
    target.options = run.planOrigin === 'operator' ? { ...held.options, ...node.settings.options } : { ...held.options };
  }

  /**
   * Why a caller's config may not send this request with held credential `name` (undefined: it
   * may): the model that would go upstream (the config's override, else the request's) must be
   * one the key could ask the catalogue for through that credential. A request on a route that
   * names its model but names none (the provider's default) is refused to a key limited to some
   * models. The refusal of a model is the catalogue's: 404 model_not_found, as for an unknown one.
   */
  private modelRefusal(ctx: GatewayContext, node: PlanNode, what: string, mayUse: (model: string | undefined) => boolean): GatewayError | undefined {
    const override = node.settings.overrideParams?.model;
    const model = typeof override === 'string' ? override : requestModel(ctx);
    if (model !== undefined) {
      if (mayUse(model)) return undefined;
      return modelNotFound(model);
    }
    if (!namesItsModel(ctx.endpoint as RouteSpec) || mayUse(undefined)) return undefined;
    return forbidden(`This key may use ${what} only for requests that name a model it may use; this request names none.`);
  }

  /**
   * Why an operator's named config may not send this request to `provider` with the key it
   * holds (its own, or providers.<id>.apiKey) (undefined: it may). A key limited to some models
   * (or whose team is) spends the operator's keys only on models it names, as the catalogue
   * would: a named config is no way around the key's `models`.
   */
  private operatorKeyRefusal(run: Run, provider: string, node: PlanNode): GatewayError | undefined {
    if (!run.namedConfig || !this.held) return undefined;
    return this.modelRefusal(run.ctx, node, `the key the gateway holds for ${provider}`, (model) => this.held!.mayUseOperatorKey(run.ctx, provider, model));
  }

  /**
   * The key of a target that names none: the request's own key goes only to the provider it
   * belongs to. Otherwise the provider's configured key (providers.<id>.apiKey), which the
   * gateway holds: only for a request with a gateway credential, and never to a caller's
   * custom_host. A target left without a key it needs fails as 401 naming its provider, and
   * nothing is sent.
   */
  private resolveKey(target: ResolvedTarget, node: PlanNode, run: Run): void {
    const provider = target.provider;
    const ctx = run.ctx;
    if (provider === run.keyOwner && ctx.has(PROVIDER_KEY)) {
      target.apiKey = ctx.get(PROVIDER_KEY);
      return;
    }
    const configured = this.services.config.providers?.[provider]?.apiKey;
    if (typeof configured === 'string' && configured) {
      if (node.callerHost) {
        this.refused.set(
          target,
          `No API key for ${provider}: the key the gateway holds for ${provider} never goes to a custom_host the request chose; give this target its own api_key.`,
        );
      } else if (!carriesGatewayCredential(ctx)) {
        this.refused.set(
          target,
          `No API key for ${provider}: the key the gateway holds for ${provider} is used only for requests that bring a gateway credential (x-gateway-token); send your own key.`,
        );
      } else {
        const refusal = this.operatorKeyRefusal(run, provider, node);
        if (refusal) {
          this.refused.set(target, refusal);
          return;
        }
        target.apiKey = configured;
        markHeldKey(target);
      }
      return;
    }
    // A provider that needs no key (ollama, vllm) is called without one.
    if (ctx.has(PROVIDER_KEY) && provider !== run.keyOwner && this.providers.get(provider)?.requiresKey !== false) {
      this.refused.set(
        target,
        `No API key for ${provider}: the request's key belongs to ${run.keyOwner ?? 'another provider'} and is never sent to another provider; give this target its own api_key, or set providers.${provider}.apiKey.`,
      );
    }
  }

  /** One target attempt (its retries included, when a retry stage follows): through its breaker when breakers are on. */
  private attempt(target: ResolvedTarget, run: Run): Promise<void> {
    const ctx = run.ctx;
    if (callerGone(ctx)) return Promise.reject(callerGoneError(target.provider));
    if (deadlinePassed(ctx)) return Promise.reject(deadlineError(target.provider));
    // Without breakers, the attempt is the call itself (no promise of its own).
    return this.breakers ? this.guardedAttempt(this.breakers, target, run) : this.callTarget(target, run);
  }

  private async guardedAttempt(breakers: BreakerRegistry, target: ResolvedTarget, run: Run): Promise<void> {
    const ctx = run.ctx;
    const action = () => this.callTarget(target, run);
    const baseUrl = target.baseUrl ?? this.providers.get(target.provider)?.baseUrl ?? '';
    const key = BreakerRegistry.keyFor(target.provider, baseUrl, target.apiKey);
    // Operator configs name their targets; a caller's config or headers get one label each (bounded).
    const label = { provider: target.provider, target: run.circuitScope.endsWith(':') ? run.circuitScope + (target.index ?? '0') : run.circuitScope };
    try {
      await breakers.run(key, label, (err) => countsForBreaker(err, ctx), action);
    } catch (err) {
      if (err instanceof BreakerOpen) {
        recordCircuitSkip(ctx, target, this.services);
        throw new CircuitOpenError(
          `Every target of this request has its circuit open (last: ${target.provider}${target.index !== undefined ? ` target ${target.index}` : ''}).`,
          err.retryAfterSeconds,
        );
      }
      throw err;
    }
  }

  private async callTarget(target: ResolvedTarget, run: Run): Promise<void> {
    const ctx = run.ctx;
    if (target.firstByteTimeout === undefined && this.defaultFirstByte !== undefined) target.firstByteTimeout = this.defaultFirstByte;
    if (target.idleTimeout === undefined && this.defaultIdle !== undefined) target.idleTimeout = this.defaultIdle;
    ctx.set(TARGET, target);
    ctx.set(UPSTREAM, target.provider);
    ctx.response = undefined;
    const requestDeadline = ctx.get(DEADLINE);
    if (target.requestTimeout !== undefined) {
      const own = performance.now() + target.requestTimeout;
      ctx.set(DEADLINE, requestDeadline === undefined ? own : Math.min(requestDeadline, own));
    }
    const recorded = ctx.get(ATTEMPTS)?.length ?? 0;
    const startedAt = performance.now();
    const parent = ctx.get(PARENT_SPAN);
    const span: TraceSpan | undefined = this.tracing?.startSpan(
      `attempt ${target.provider}`,
      'internal',
      { 'gen_ai.system': target.provider, 'gateway.target.index': target.index, 'gateway.attempt': recorded + 1 },
      parent,
    );
    if (span) ctx.set(PARENT_SPAN, span);
    try {
      const refusal = this.refused.get(target);
      if (refusal) {
        throw typeof refusal === 'string' ? new GatewayError('invalid_api_key', refusal, { provider: target.provider }) : refusal;
      }
      await run.next();
      if (!ctx.response) throw internalError(new Error('the pipeline after fallback produced no answer: is forward missing?'));
      if ((ctx.get(ATTEMPTS)?.length ?? 0) === recorded) recordAttempt(ctx, target, startedAt, undefined);
    } catch (err) {
      const failure = toGatewayError(err, target.provider);
      if ((ctx.get(ATTEMPTS)?.length ?? 0) === recorded) recordAttempt(ctx, target, startedAt, failure, this.services);
      span?.fail(failure.message, failure.code);
      throw failure;
    } finally {
      ctx.set(DEADLINE, requestDeadline);
      if (span) {
        span.end();
        ctx.set(PARENT_SPAN, parent);
      }
    }
  }
}

function pickSooner(a: CircuitOpenError | undefined, b: CircuitOpenError): CircuitOpenError {
  if (!a) return b;
  const ra = Number(a.headers?.['retry-after'] ?? Infinity);
  const rb = Number(b.headers?.['retry-after'] ?? Infinity);
  return rb < ra ? b : a;
}

/** The model a request names: its JSON body's `model`, or an upload's `model` field. */
function requestModel(ctx: GatewayContext): string | undefined {
  const body = ctx.get(BODY) as { model?: unknown; fields?: { model?: unknown } } | undefined;
  if (!body) return undefined;
  const model = ctx.endpoint.body === 'multipart' ? body.fields?.model : body.model;
  return typeof model === 'string' ? model : undefined;
}
