import type { GatewayContext, ResolvedTarget } from '../engine/context.js';
import { headerValue } from '../engine/context.js';
import type { GatewayServices } from '../engine/services.js';
import { ensureJsonBody } from '../engine/request-body.js';
import { badRequest, GatewayError, internalError } from '../errors/gateway-error.js';
import { normalizeError } from '../errors/normalize.js';
import { providerOptionsFrom } from '../stages/provider-credentials.js';
import { recordAttempt } from './attempts.js';
import { BreakerOpen, BreakerRegistry } from './breakers.js';
import type { ConditionInput } from './conditions.js';
import {
  callerGone,
  callerGoneError,
  CircuitOpenError,
  countsForBreaker,
  deadlineError,
  deadlinePassed,
  uploadSpent,
  isCircuitOpen,
  isRoutingFailure,
} from './failure.js';
import type { CompiledPlan, PlanNode } from './plan.js';
import { weightedOrder } from './weighted.js';

/** Per-request state of one plan run. */
interface Run {
  ctx: GatewayContext;
  next: () => Promise<void>;
  headerOptions?: Record<string, unknown>;
  conditionInput?: ConditionInput;
  secretsAdded: Set<PlanNode>;
}

/** Single-target runs resolve no plan nodes, so they share one empty set. */
const NO_NODES: Set<PlanNode> = new Set();

function toGatewayError(err: unknown, provider?: string): GatewayError {
  return err instanceof GatewayError ? err : normalizeError(err, provider);
}

/**
 * Runs a request through a compiled plan: picks targets by each group's strategy, calls the
 * rest of the pipeline (`next`) once per target attempt with ctx.target set, and decides
 * after each failure whether another target may be tried. No new attempt starts once the
 * caller has gone or the request's deadline has passed.
 */
export class PlanRunner {
  constructor(
    private readonly services: GatewayServices,
    private readonly breakers: BreakerRegistry | undefined,
    private readonly bodyLimit: number,
  ) {}

  async run(ctx: GatewayContext, plan: CompiledPlan, next: () => Promise<void>): Promise<void> {
    if (plan.requestTimeout !== undefined) {
      const deadline = ctx.startedAt + plan.requestTimeout;
      ctx.deadline = ctx.deadline === undefined ? deadline : Math.min(ctx.deadline, deadline);
    }
    const run: Run = { ctx, next, secretsAdded: new Set() };
    if (plan.conditional) await this.prepareConditions(run);
    await this.runNode(plan.root, run);
  }

  /** One target named by the request headers (no routing config). */
  async runSingle(ctx: GatewayContext, target: ResolvedTarget, next: () => Promise<void>): Promise<void> {
    await this.attempt(target, { ctx, next, secretsAdded: NO_NODES });
  }

  private async prepareConditions(run: Run): Promise<void> {
    const ctx = run.ctx;
    let metadata: Record<string, unknown> = {};
    const raw = headerValue(ctx.headers, 'x-gateway-metadata');
    if (raw) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(raw);
      } catch {
        throw badRequest('x-gateway-metadata must be a JSON object.', 'x-gateway-metadata');
      }
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
        throw badRequest('x-gateway-metadata must be a JSON object.', 'x-gateway-metadata');
      }
      metadata = parsed as Record<string, unknown>;
    }
    if (ctx.route.body === 'json') await ensureJsonBody(ctx, this.bodyLimit);
    const params = ctx.body && typeof ctx.body === 'object' && !Array.isArray(ctx.body) ? (ctx.body as Record<string, unknown>) : {};
    run.conditionInput = { metadata, params };
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
        throw badRequest(
          `x-gateway-config: ${node.path ? `${node.path}.` : ''}strategy: no condition matched this request and the config has no default.`,
          'x-gateway-config',
        );
      }
    }
  }

  /** After a child failed with `err`, may the group try its next child? */
  private movesOn(node: PlanNode, err: GatewayError): boolean {
    if (node.mode === 'fallback') return isRoutingFailure(err, node.onStatusCodes);
    if (node.mode === 'loadbalance') return node.onStatusCodes !== undefined && isRoutingFailure(err, node.onStatusCodes);
    return false;
  }

  private async runNode(node: PlanNode, run: Run): Promise<void> {
    if (!node.children) {
      await this.attempt(this.resolveLeaf(node, run), run);
      return;
    }
    let last: GatewayError | undefined;
    let open: CircuitOpenError | undefined;
    for (const i of this.order(node, run)) {
      if (last && (callerGone(run.ctx) || deadlinePassed(run.ctx))) break;
      try {
        await this.runNode(node.children[i]!, run);
        return;
      } catch (err) {
        if (isCircuitOpen(err)) {
          open = pickSooner(open, err);
          continue;
        }
        const failure = toGatewayError(err, run.ctx.target?.provider);
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
    const provider = s.provider ?? ctx.providerHeader;
    if (!provider) {
      throw badRequest(
        `x-gateway-config: ${node.path ? `${node.path}.` : ''}provider: this target has no provider (set provider on it or a parent, or send x-gateway-provider).`,
        'x-gateway-config',
      );
    }
    if (!run.secretsAdded.has(node)) {
      run.secretsAdded.add(node);
      ctx.secrets.push(...node.secrets);
    }
    run.headerOptions ??= providerOptionsFrom(ctx);
    const target: ResolvedTarget = {
      provider,
      apiKey: s.apiKey ?? ctx.providerKey,
      options: { ...run.headerOptions, ...s.options },
      index: node.index,
    };
    if (s.customHost !== undefined) target.baseUrl = s.customHost;
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

  /** One target attempt (its retries included, when a retry stage follows): through its breaker when breakers are on. */
  private async attempt(target: ResolvedTarget, run: Run): Promise<void> {
    const ctx = run.ctx;
    if (callerGone(ctx)) throw callerGoneError(target.provider);
    if (deadlinePassed(ctx)) throw deadlineError(target.provider);
    const action = () => this.callTarget(target, run);
    if (!this.breakers) return action();
    const baseUrl = target.baseUrl ?? this.services.providers.get(target.provider)?.baseUrl ?? '';
    const key = BreakerRegistry.keyFor(target.provider, baseUrl, target.apiKey);
    try {
      await this.breakers.run(key, (err) => countsForBreaker(err, ctx), action);
    } catch (err) {
      if (err instanceof BreakerOpen) {
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
    ctx.target = target;
    ctx.response = undefined;
    const requestDeadline = ctx.deadline;
    if (target.requestTimeout !== undefined) {
      const own = performance.now() + target.requestTimeout;
      ctx.deadline = requestDeadline === undefined ? own : Math.min(requestDeadline, own);
    }
    const recorded = ctx.attempts.length;
    const startedAt = performance.now();
    try {
      await run.next();
      if (!ctx.response) throw internalError(new Error('the pipeline after route produced no answer: is forward missing?'));
      if (ctx.attempts.length === recorded) recordAttempt(ctx, target, startedAt, undefined);
    } catch (err) {
      const failure = toGatewayError(err, target.provider);
      if (ctx.attempts.length === recorded) recordAttempt(ctx, target, startedAt, failure, this.services.metrics);
      throw failure;
    } finally {
      ctx.deadline = requestDeadline;
    }
  }
}

function pickSooner(a: CircuitOpenError | undefined, b: CircuitOpenError): CircuitOpenError {
  if (!a) return b;
  const ra = Number(a.headers?.['retry-after'] ?? Infinity);
  const rb = Number(b.headers?.['retry-after'] ?? Infinity);
  return rb < ra ? b : a;
}
