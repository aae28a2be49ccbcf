import type { GatewayContext } from '../../../kernel/engine/context.js';
import type { AnyRouteSpec } from '../../../contract/routes.js';
import { BODY, RAW_BODY } from '../../../kernel/engine/request-body.js';
import type { Logger } from '../../../kernel/observability/logger.js';
import type { SeriesCounter } from '../../../kernel/observability/series-metrics.js';
import { GatewayError } from '../../../contract/errors/gateway-error.js';
import { ATTEMPTS, TARGET, setRequestUsage, type RoutingDecision, type PlanNode, type CompiledPlan } from '../../models/index.js';
import { costOf, worstCaseCost, type ModelPrice } from '../prices/cost.js';
import { usdFromMicros } from '../prices/money.js';
import { NO_USAGE, usageClasses, type TokenUsage } from '../prices/usage-classes.js';
import type { ApplicableBudget, BudgetLedger, GatewayKey, Reservation, ReserveResult, UsageAttempt, UsageLedger, UsagePart, UsageRow } from '../governance-types.js';
import { answerUsage } from './answer-usage.js';
import type { MeteringInputs } from './metering-inputs.js';
import { countPromptTokens, countText, loadTokenizer, tokenizerSettled } from './token-count.js';
import type { StreamNotes } from './stream-text.js';

/** Output tokens reserved when neither the request nor the catalogue bounds them. */
export const DEFAULT_MAX_OUTPUT_TOKENS = 4096;

/** The answer cache's status header (cache stage). */
const CACHE_STATUS = 'x-gateway-cache-status';

/** A meter's budgets before reserve has read them, and its parts before a tool loop adds one: shared, never written. */
const NO_BUDGETS: readonly ApplicableBudget[] = Object.freeze([]);
const NO_PARTS: Array<ModelPart | ToolPart> = Object.freeze([]) as unknown as Array<ModelPart | ToolPart>;

/** What metering keeps long-lived: inputs, the ledger, metrics, settings. */
export interface MeterDeps {
  inputs: MeteringInputs;
  ledger: UsageLedger;
  logger: Logger;
  spend: SeriesCounter;
  refusals: SeriesCounter;
  unpriced: SeriesCounter;
  teamLabel(team: string | undefined): string;
  modelLabel(provider: string, model: string): string;
  providerLabel(provider: string): string;
  unpricedPolicy: 'refuse' | 'allow';
  onStoreDown: 'refuse' | 'allow';
  /** The meters of tool loops with tool calls under way or not yet finished, by request id (the tool-call observer notes each call there). */
  loops: Map<string, Meter>;
}

/** A model call of a tool loop, as noted. */
interface ModelPart {
  kind: 'model';
  provider: string | null;
  model: string | null;
  usage: TokenUsage;
  /** 200, or the failed call's status (it costs nothing). */
  status: number;
  at: number;
  latencyMs: number;
  estimated: boolean;
}

/** A tool call of a tool loop, as the tool-call observer saw it end. */
export interface ToolPart {
  kind: 'tool';
  server: string;
  tool: string;
  micros: number;
  priceSource: string | null;
  status: number;
  at: number;
  latencyMs: number;
}

/** An upstream candidate of a routing decision: a leaf target's provider and the model it is asked for. */
interface Candidate {
  provider: string;
  model: string | undefined;
}

/** Each plan's candidates for the model last asked of it (a catalogue plan names its model: the same list every request). */
const planCandidates = new WeakMap<CompiledPlan, { requested: string | undefined; list: readonly Candidate[] }>();

/** The upstream candidates of a routing decision: each leaf target's provider and model override. */
export function candidatesOf(decision: RoutingDecision | undefined, requested: string | undefined): readonly Candidate[] {
  if (!decision) return [];
  if (decision.single) {
    const m = decision.single.overrideParams?.model;
    return [{ provider: decision.single.provider, model: typeof m === 'string' ? m : requested }];
  }
  const plan = decision.plan;
  const known = planCandidates.get(plan);
  if (known !== undefined && known.requested === requested) return known.list;
  const out: Candidate[] = [];
  const walk = (node: PlanNode, provider: string | undefined, model: string | undefined) => {
    const p = node.settings.provider ?? provider;
    const m = node.settings.overrideParams?.model;
    const mm = typeof m === 'string' ? m : model;
    if (node.children?.length) for (const child of node.children) walk(child, p, mm);
    else if (p) out.push({ provider: p, model: mm });
  };
  walk(plan.root, undefined, requested);
  const list = Object.freeze(out.map((c) => Object.freeze(c)));
  planCandidates.set(plan, { requested, list });
  return list;
}

/** A cost where prices cover only some classes of an image/audio answer (per-unit price, token usage reported too). */
function billable(price: ModelPrice, usage: TokenUsage, batch: boolean): number | undefined {
  const full = costOf(price, usage, { batch });
  if (full) return full.micros;
  if (usage.images + usage.audioSeconds + usage.characters === 0) return undefined;
  return costOf(price, { ...NO_USAGE, images: usage.images, audioSeconds: usage.audioSeconds, characters: usage.characters }, { batch })?.micros;
}

/** Operations whose output allowance is text tokens (`max_tokens` and the like, else the model's). */
const TEXT_OUTPUT = new Set(['chat.completions', 'completions', 'responses.create', 'messages.create']);

/**
 * Output tokens an image may bill where a model prices images by their tokens rather than per
 * image (gpt-image-1: 6,240 for its largest image at high quality, per OpenAI's image guide).
 */
const IMAGE_OUTPUT_TOKENS = 6_240;

/** The images a request asks for (`n`, default 1; an upload's field is text). */
function imagesAsked(body: Record<string, unknown> | undefined): number {
  const n = Number(body?.n ?? 1);
  return Number.isSafeInteger(n) && n > 0 ? n : 1;
}

/** A request's bound on its output tokens, when `value` is one (a number, not negative). */
function outputBound(value: unknown): number | undefined {
  return typeof value === 'number' && value >= 0 ? value : undefined;
}

/** The §8 budget refusal: 429 budget_exceeded naming the budget and when it resets. */
export function budgetExceeded(refusedBy: ApplicableBudget, resetAt: number | null): GatewayError {
  const name = refusedBy.budget.name ? ` "${refusedBy.budget.name}"` : '';
  const when = resetAt === null ? 'It does not reset (a total budget).' : `It resets at ${new Date(resetAt * 1000).toISOString()}.`;
  const headers: Record<string, string> = { 'x-should-retry': 'false' };
  if (resetAt !== null) headers['x-gateway-budget-reset'] = String(resetAt);
  return new GatewayError('budget_exceeded', `The ${refusedBy.scope} budget${name} of ${refusedBy.subject} is exhausted. ${when}`, { headers });
}

/** The request's upstream attempts as the ledger keeps them (at most 32; no message, which may quote the upstream). */
function ledgerAttempts(ctx: GatewayContext): UsageAttempt[] | null {
  const attempts = ctx.get(ATTEMPTS);
  if (!attempts?.length) return null;
  return attempts.slice(0, 32).map((a) => ({
    provider: a.provider,
    target: a.targetIndex ?? null,
    status: a.status ?? null,
    latency_ms: Math.round(a.durationMs),
    error_type: a.code ?? null,
    ...(a.skipped ? { skipped: a.skipped } : {}),
  }));
}

/**
 * One metered request: reserves its worst case on every applicable budget before it goes
 * upstream, and once the answer is written (or failed) settles to the real cost and records
 * its ledger row. Streams note their generated text so that a caller who goes away is still
 * billed for what was generated (counted with the tokenizer, marked estimated).
 */
export class Meter {
  readonly at = Date.now();
  /** The budgets that apply, known once reserve has read them (a batch line reserves nothing). */
  budgets: readonly ApplicableBudget[] = NO_BUDGETS;
  reservation: Reservation | undefined;
  /** Tightest money budget's remaining microdollars after the reservation. */
  remainingAfterReserve: number | undefined;
  unverified = false;
  /** What the stream handed to the caller (its text is read only when the stream was cut). */
  streamed: StreamNotes | undefined;
  /**
   * Set once the answer's cost is known (decorate for JSON answers, finish for streams). `micros`
   * is what the request cost (a tool loop: its model and tool calls); `settleMicros` what the
   * budgets settle to (the same, but 0 rather than null when a model has no price: a loop's
   * priced tool calls are charged even so); `toolMicros` the part of it its tools' prices make
   * (the spend metric counted those as each call ended); `parts` how many of the loop's parts
   * the sums cover.
   */
  private computed:
    | {
        usage: TokenUsage;
        micros: number | null;
        settleMicros: number | null;
        toolMicros: number;
        priceSource: string | null;
        provider: string | null;
        model: string | null;
        estimated: boolean;
        parts: number;
      }
    | undefined;
  private finished = false;
  /** The request, once finished (parts that end later are written alone with it). */
  private finishedCtx: GatewayContext | undefined;
  /** The request id, once the meter is known to the tool-call observer (a loop's first tool call). */
  private loopId: string | undefined;
  /** The loop's tool calls under way (the meter stays known to the observer until they end). */
  private toolCallsInFlight = 0;
  /** The model and tool calls of a tool loop, in the order they ended: the parts of the request's ledger row. */
  private parts: Array<ModelPart | ToolPart> = NO_PARTS;
  /** The parts already in the ledger (with the row, or late). */
  private partsRecorded = 0;

  constructor(
    readonly key: GatewayKey,
    private readonly deps: MeterDeps,
    ctx: GatewayContext,
    /** A line of a gateway-run batch: priced at the batch price, recorded under `batch: <route>`. */
    private readonly batch = false,
  ) {}

  private get moneyBudgets(): readonly ApplicableBudget[] {
    return this.budgets.filter((b) => b.budget.limit_usd !== undefined);
  }

  /**
   * Reserves the request's worst case; throws the refusal (403 unpriced, 429 budget, 503 store
   * down). Answers in this turn (undefined) when the ledger can (a lease with room), else a
   * promise: most requests make no promise and wait on no microtask here.
   */
  reserve(ctx: GatewayContext, decision: RoutingDecision | undefined): Promise<void> | undefined {
    if (!this.deps.inputs.budgetLedger) return undefined;
    const budgets = this.deps.inputs.budgetsFor(ctx, this.key);
    if (!Array.isArray(budgets)) return (budgets as Promise<readonly ApplicableBudget[]>).then((read) => this.reserveOn(ctx, decision, read));
    return this.reserveOn(ctx, decision, budgets);
  }

  private reserveOn(ctx: GatewayContext, decision: RoutingDecision | undefined, budgets: readonly ApplicableBudget[]): Promise<void> | undefined {
    this.budgets = budgets;
    if (budgets.length === 0) return undefined;
    const body = ctx.get(BODY) as Record<string, unknown> | undefined;
    // Every prompt token is at least one byte of the request body (byte-level BPE), so the body's
    // length bounds the prompt without tokenizing it. Only a request that bound does not fit is
    // counted with the tokenizer and asked again: the tokenizer runs where its precision matters.
    const bodyBytes = ctx.get(RAW_BODY)?.length;
    // A body without its bytes (a form's fields) is counted: with the tokenizer, once it is in.
    if (bodyBytes === undefined && !tokenizerSettled()) return loadTokenizer().then(() => this.reserveOn(ctx, decision, budgets));
    const amount = this.worstCase(ctx, body, decision, bodyBytes ?? countPromptTokens(body));
    const now = this.deps.inputs.budgetLedger!.reserveNow?.(budgets, amount);
    if (now?.ok) {
      this.reserved(ctx, now);
      return undefined;
    }
    return this.reserveLater(ctx, body, decision, bodyBytes, amount);
  }

  /** reserve where the ledger must be asked (a lease to take, the store itself): the same steps, awaited. */
  private async reserveLater(
    ctx: GatewayContext,
    body: Record<string, unknown> | undefined,
    decision: RoutingDecision | undefined,
    bodyBytes: number | undefined,
    amount: Reservation,
  ): Promise<void> {
    let result = await this.ask(ctx, amount);
    if (!result.ok && !('storeDown' in result) && bodyBytes !== undefined) {
      await loadTokenizer();
      const counted = countPromptTokens(body);
      if (counted < bodyBytes) result = await this.ask(ctx, this.worstCase(ctx, body, decision, counted));
    }
    this.reserved(ctx, result);
  }

  /** The ledger's answer taken: the reservation kept, or the refusal thrown (a store down let through where budgets.onStoreDown allows). */
  private reserved(ctx: GatewayContext, result: ReserveResult): void {
    if (result.ok) {
      this.reservation = result.reservation;
      this.remainingAfterReserve = result.remainingMicros;
      return;
    }
    if ('storeDown' in result) {
      if (this.deps.onStoreDown === 'allow') {
        this.unverified = true;
        this.deps.logger.warn({ requestId: ctx.id, key: this.key.id }, 'budget store down: request served without a budget check (budgets.onStoreDown: allow)');
        return;
      }
      throw new GatewayError('service_unavailable', 'The budget store is unreachable: budgets cannot be checked, so the request is not served.', {
        headers: { 'x-should-retry': 'true' },
      });
    }
    this.deps.refusals.inc([result.refusedBy.scope]);
    throw budgetExceeded(result.refusedBy, result.resetAt);
  }

  /** The ledger asked for `reservation` (a store that cannot be reached answers storeDown). */
  private async ask(ctx: GatewayContext, reservation: Reservation): Promise<ReserveResult> {
    try {
      return await this.deps.inputs.budgetLedger!.reserve(this.budgets, reservation);
    } catch (err) {
      this.deps.logger.warn({ requestId: ctx.id, err: (err as Error).message }, 'budget store unreachable');
      return { ok: false, storeDown: true };
    }
  }

  /**
   * The reservation for the worst case of a prompt of `promptTokens`: the dearest candidate at
   * its output bound. Throws the unpriced refusal (403).
   */
  private worstCase(ctx: GatewayContext, body: Record<string, unknown> | undefined, decision: RoutingDecision | undefined, promptTokens: number): Reservation {
    const { inputs } = this.deps;
    const requested = typeof body?.model === 'string' ? body.model : undefined;
    const candidates = candidatesOf(decision, requested);
    const operation = (ctx.endpoint as { operation?: string }).operation ?? '';
    // Text operations bound their output in tokens; embeddings make none; images and speech are
    // asked for in units (images, characters) priced per unit, or, where a model prices them in
    // tokens, at a bound of output tokens per image. Seconds of audio transcribed are settled.
    const textOutput = TEXT_OUTPUT.has(operation);
    const images = operation.startsWith('images.') ? imagesAsked(body) : 0;
    const characters = operation === 'audio.speech' && typeof body?.input === 'string' ? body.input.length : 0;
    const asked = textOutput ? (outputBound(body?.max_completion_tokens) ?? outputBound(body?.max_tokens) ?? outputBound(body?.max_output_tokens)) : undefined;
    let micros = 0;
    let maxOut = asked ?? 0;
    for (const c of candidates) {
      const price = c.model === undefined ? undefined : inputs.priceOf(ctx, c.provider, c.model);
      const out = textOutput
        ? (asked ?? (c.model !== undefined ? inputs.maxOutputTokensOf?.(ctx, c.provider, c.model) : undefined) ?? DEFAULT_MAX_OUTPUT_TOKENS)
        : images > 0 && price?.perImage === undefined
          ? images * IMAGE_OUTPUT_TOKENS
          : 0;
      maxOut = Math.max(maxOut, out);
      const worst = price && worstCaseCost(price, promptTokens, out, { images, characters });
      if (!worst) {
        if (this.moneyBudgets.length > 0 && this.deps.unpricedPolicy === 'refuse') {
          // A catalogue model is named as the caller named it: its targets' upstream names are the operator's.
          const entry = inputs.catalogueEntryOf?.(ctx);
          const name = entry !== undefined ? entry : `${c.model ?? '(no model named)'} at ${c.provider}`;
          throw new GatewayError('insufficient_permissions', `The model ${name} has no price, and a money budget applies to this request: it cannot be served.`);
        }
        continue;
      }
      micros = Math.max(micros, worst.micros);
    }
    return { id: ctx.id, micros, tokens: promptTokens + maxOut };
  }

  /**
   * One model call of a tool loop answered with `usage` (its answer's usage block, any shape):
   * the request is then billed as the sum of its calls, each recorded as a row of its own.
   */
  noteModelCall(ctx: GatewayContext, usage: unknown, startedAt: number): void {
    const { provider, model } = this.modelOf(ctx);
    // answered from the gateway's cache (the cache stage sets the status on every call): nothing was spent upstream
    const hit = ctx.responseHeaders[CACHE_STATUS] === 'HIT';
    this.pushPart({
      kind: 'model',
      provider,
      model,
      usage: !hit && usage && typeof usage === 'object' ? usageClasses(usage as Record<string, unknown>) : { ...NO_USAGE },
      status: 200,
      at: Date.now(),
      latencyMs: performance.now() - startedAt,
      estimated: false,
    });
  }

  /** A model call of a tool loop that failed with `status` (no answer, or not 2xx): a part of the request that costs nothing. */
  noteFailedModelCall(ctx: GatewayContext, status: number, startedAt: number): void {
    const { provider, model } = this.modelOf(ctx);
    this.pushPart({ kind: 'model', provider, model, usage: { ...NO_USAGE }, status, at: Date.now(), latencyMs: performance.now() - startedAt, estimated: false });
  }

  /**
   * A tool call of the loop begins (the tool-loop stage, around each call): until it ends, and
   * until the request is finished, the tool-call observer finds this meter by the request id.
   * Returns what to call when the call has ended.
   */
  toolCallStarted(ctx: GatewayContext): () => void {
    this.loopId = ctx.id;
    this.deps.loops.set(ctx.id, this);
    this.toolCallsInFlight++;
    return () => {
      this.toolCallsInFlight--;
      this.forget();
    };
  }

  /** The observer's part: the tool call ended (after the request's row: a part written alone, under the request). */
  noteToolCall(part: Omit<ToolPart, 'kind'>): void {
    this.pushPart({ kind: 'tool', ...part });
  }

  private pushPart(part: ModelPart | ToolPart): void {
    if (this.parts === NO_PARTS) this.parts = [];
    this.parts.push(part);
    if (this.finished) this.recordLate();
  }

  /** Parts that ended after the request's row was made (a call the caller's going away cut): written alone, under the request. */
  private recordLate(): void {
    const ctx = this.finishedCtx;
    if (!ctx || this.parts.length <= this.partsRecorded) return;
    const late = this.usageParts(ctx, this.partsRecorded, this.parts.length);
    this.partsRecorded = this.parts.length;
    this.deps.ledger.recordParts(ctx.id, late);
  }

  /** Parts [from, to) as ledger parts (seq from 1 in the order they ended). */
  private usageParts(ctx: GatewayContext, from: number, to: number): UsagePart[] {
    return this.parts.slice(from, to).map((part, i): UsagePart => {
      const seq = from + i + 1;
      if (part.kind === 'tool')
        return {
          seq,
          kind: 'tool',
          provider: null,
          model: null,
          server: part.server,
          tool: part.tool,
          usage: { ...NO_USAGE },
          costMicros: part.micros,
          priceSource: part.priceSource,
          status: part.status,
          latencyMs: part.latencyMs,
          estimated: false,
          at: part.at,
        };
      const cost = this.partCost(ctx, part);
      return {
        seq,
        kind: 'model',
        provider: part.provider,
        model: part.model,
        server: null,
        tool: null,
        usage: part.usage,
        costMicros: cost.micros,
        priceSource: cost.priceSource,
        status: part.status,
        latencyMs: part.latencyMs,
        estimated: part.estimated,
        at: part.at,
      };
    });
  }

  private forget(): void {
    if (this.finished && this.toolCallsInFlight === 0 && this.loopId && this.deps.loops.get(this.loopId) === this) this.deps.loops.delete(this.loopId);
  }

  /**
   * A streamed model call of a tool loop cut before its answer was whole (the caller went away,
   * the loop's time limit, the stream broke): billed for what was generated, like any stream cut
   * short (its prompt and generated text counted with the tokenizer, marked estimated).
   */
  noteCutModelCall(ctx: GatewayContext, request: unknown, generated: string, startedAt: number, status: number): void {
    const { provider, model } = this.modelOf(ctx);
    this.pushPart({
      kind: 'model',
      provider,
      model,
      usage: { ...NO_USAGE, input: countPromptTokens(request), output: countText(generated) },
      status,
      at: Date.now(),
      latencyMs: performance.now() - startedAt,
      estimated: true,
    });
  }

  private modelOf(ctx: GatewayContext): { provider: string | null; model: string | null } {
    const target = ctx.get(TARGET);
    const body = ctx.get(BODY) as Record<string, unknown> | undefined;
    const override = target?.overrideParams?.model;
    return { provider: target?.provider ?? null, model: typeof override === 'string' ? override : typeof body?.model === 'string' ? body.model : null };
  }

  /** A model part's cost (null: unpriced; a failed call costs nothing, a cut one what it generated). */
  private partCost(ctx: GatewayContext, part: ModelPart): { micros: number | null; priceSource: string | null } {
    if (part.status !== 200 && !part.estimated) return { micros: 0, priceSource: null };
    const price = part.provider && part.model ? this.deps.inputs.priceOf(ctx, part.provider, part.model) : undefined;
    return { micros: price ? (billable(price, part.usage, this.batch) ?? null) : null, priceSource: price?.source ?? null };
  }

  /**
   * Whether the request is billed by its parts: a tool loop that made a model call, however the
   * loop ended. A loop that ends in an error (a model call failed, a guardrail denied an answer)
   * is still billed for the calls that answered before it; the failed call costs nothing.
   */
  private byParts(): boolean {
    return this.parts.length > 0;
  }

  /** The answer's cost, worked out once (by decorate for JSON answers, or at finish). */
  private costNow(ctx: GatewayContext<AnyRouteSpec>, status: number): NonNullable<Meter['computed']> {
    if (this.computed) return this.computed;
    const { provider, model } = this.modelOf(ctx);
    if (this.byParts()) {
      // the request's sums: every token class and the cost of its model calls, plus its tool calls' prices
      const usage = { ...NO_USAGE };
      let models: number | null = 0;
      let tools = 0;
      let priceSource: string | null = null;
      let estimated = false;
      let last: ModelPart | undefined;
      for (const part of this.parts) {
        if (part.kind === 'tool') {
          tools += part.micros;
          continue;
        }
        last = part;
        estimated ||= part.estimated;
        for (const key of Object.keys(usage) as Array<keyof TokenUsage>) usage[key] += part.usage[key];
        const cost = this.partCost(ctx, part);
        models = models === null || cost.micros === null ? null : models + cost.micros;
        priceSource ??= cost.priceSource;
      }
      return (this.computed = {
        usage,
        micros: models === null ? null : models + tools,
        // budgets are charged every call the loop made: its model calls and its tools' prices
        settleMicros: (models ?? 0) + tools,
        toolMicros: tools,
        priceSource,
        // the row names the loop's last model call (the one whose answer, or failure, ended it)
        provider: last ? last.provider : provider,
        model: last ? last.model : model,
        estimated,
        parts: this.parts.length,
      });
    }
    const body = ctx.get(BODY) as Record<string, unknown> | undefined;
    // Answered from the gateway's cache: nothing was spent upstream.
    const failed = (status >= 400 && !ctx.res.headersSent) || ctx.responseHeaders[CACHE_STATUS] === 'HIT';
    // A passed-through Anthropic or Responses stream's own usage block (cache classes kept) comes first.
    const noted = failed ? undefined : this.streamed?.usage();
    let usage: TokenUsage | undefined = failed ? { ...NO_USAGE } : noted ? usageClasses(noted) : answerUsage(ctx);
    let estimated = false;
    if (!failed && !usage && this.streamed && ctx.response?.kind === 'stream') {
      // The stream ended before its usage (the caller went away): count what was generated and the prompt.
      usage = { ...NO_USAGE, input: countPromptTokens(body), output: countText(this.streamed.text()) };
      estimated = true;
    }
    usage ??= { ...NO_USAGE };
    let micros: number | null = 0;
    let priceSource: string | null = null;
    if (!failed && provider && model) {
      const price = this.deps.inputs.priceOf(ctx, provider, model);
      micros = price ? (billable(price, usage, this.batch) ?? null) : null;
      priceSource = price?.source ?? null;
    } else if (!failed) micros = null;
    return (this.computed = { usage, micros, settleMicros: micros, toolMicros: 0, priceSource, provider, model, estimated, parts: 0 });
  }

  /** x-gateway-cost (when known) and x-gateway-budget-remaining on the answer. */
  decorate(ctx: GatewayContext<AnyRouteSpec>, headers: Record<string, string>): void {
    const response = ctx.response;
    // A stream's head goes out before its cost is known: it carries no cost header.
    const streaming = response?.kind === 'stream' && !ctx.error;
    const status = ctx.error ? ctx.error.status : response && 'status' in response ? response.status : 200;
    const cost = streaming ? undefined : this.costNow(ctx, status);
    if (cost && cost.micros !== null) headers['x-gateway-cost'] = usdFromMicros(cost.micros);
    if (this.remainingAfterReserve !== undefined) {
      // What the settle gives back of the reservation (nothing known yet for a stream).
      const back = cost ? (this.reservation?.micros ?? 0) - (cost.settleMicros ?? 0) : 0;
      headers['x-gateway-budget-remaining'] = usdFromMicros(Math.max(0, this.remainingAfterReserve + back));
    }
  }

  /** Settles the reservation to the real cost and records the ledger row (once, after the answer). */
  finish(ctx: GatewayContext<AnyRouteSpec>, status: number): void {
    if (this.finished) return;
    this.finished = true;
    this.finishedCtx = ctx;
    const cost = this.costNow(ctx, status);
    const { deps } = this;
    setRequestUsage(ctx, cost.usage, cost.micros === null ? undefined : usdFromMicros(cost.micros), cost.estimated);
    // a loop's tool calls counted in the spend metric as each ended (model mcp): here its model calls
    if (cost.micros === null && !(status >= 400 && !ctx.res.headersSent)) deps.unpriced.inc([]);
    else if (cost.settleMicros && cost.settleMicros > cost.toolMicros)
      deps.spend.inc(
        [
          deps.teamLabel(this.key.team),
          cost.model && cost.provider ? deps.modelLabel(cost.provider, cost.model) : 'other',
          cost.provider ? deps.providerLabel(cost.provider) : 'other',
        ],
        (cost.settleMicros - cost.toolMicros) / 1e6,
      );
    const row: UsageRow = {
      requestId: ctx.id,
      at: this.at,
      keyId: this.key.id,
      user: this.key.user ?? null,
      team: this.key.team ?? null,
      organization: this.key.organization ?? null,
      customer: this.key.customer ?? null,
      route: this.batch ? `batch: ${ctx.route}` : ctx.route,
      provider: cost.provider,
      model: cost.model,
      usage: cost.usage,
      costMicros: cost.micros,
      priceSource: cost.priceSource,
      status,
      latencyMs: performance.now() - ctx.startedAt,
      estimated: cost.estimated,
      unverified: this.unverified,
      attempts: ledgerAttempts(ctx),
    };
    // a tool loop: its model and tool calls, written with the row (the ones the sums cover; any later one alone)
    if (cost.parts > 0) row.parts = this.usageParts(ctx, 0, cost.parts);
    this.partsRecorded = cost.parts;
    this.recordLate();
    this.forget();
    const ledger = deps.inputs.budgetLedger;
    const reservation = this.reservation;
    if (!ledger || !reservation) {
      deps.ledger.record(row);
      return;
    }
    const tokens = cost.usage.input + cost.usage.cacheRead + cost.usage.cacheWrite + cost.usage.output + cost.usage.reasoning + cost.usage.inputAudio + cost.usage.outputAudio;
    settleThenRecord(deps, ledger, this.budgets, reservation, { micros: cost.settleMicros ?? 0, tokens }, row);
  }
}

/**
 * Counters first, then the row: budgets are never behind the ledger. On leases the settle
 * answers once the lease's spend has reached the store (up to the lease interval later), so
 * what waits for it is only the row and one callback: not the request's context, whose buffers
 * and objects would otherwise outlive the answer and be promoted to the old generation
 * meanwhile, nor a chain of promises per request.
 */
export function settleThenRecord(
  deps: Pick<MeterDeps, 'ledger' | 'logger'>,
  ledger: BudgetLedger,
  budgets: readonly ApplicableBudget[],
  reservation: Reservation,
  actual: { micros: number; tokens: number },
  row: UsageRow,
  /** What was settled, for the warning when the settle fails ("a tool call"). */
  what?: string,
): void {
  const ended = deps.ledger.expect();
  const record = (err: Error | undefined) => {
    if (err) {
      row.unverified = true;
      deps.logger.warn({ requestId: row.requestId, err: err.message }, `budget settle failed${what ? ` for ${what}` : ''}; the reservation expires by itself`);
    }
    deps.ledger.record(row);
    ended();
  };
  if (ledger.settleThen) ledger.settleThen(budgets, reservation, actual, record);
  else
    ledger.settle(budgets, reservation, actual).then(
      () => record(undefined),
      (err: Error) => record(err),
    );
}
