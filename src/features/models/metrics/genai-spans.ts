import type { AnyRouteSpec } from '../../../contract/routes.js';
import type { GatewayContext } from '../../../kernel/engine/context.js';
import { defineSlot } from '../../../kernel/engine/slot.js';
import { PARENT_SPAN, REQUEST_SPAN } from '../../../kernel/engine/tracing.js';
import type { TraceSpan, Tracing } from '../../../kernel/observability/tracing.js';
import type { ResolvedTarget } from '../providers/provider.js';
import type { AnswerFacts } from './usage-scan.js';
import { factsOf, requestedModel } from './answer-facts.js';

/** The GenAI semantic conventions' operation name of each gateway operation (others keep their own). */
const GENAI_OPERATIONS: Record<string, string> = {
  'chat.completions': 'chat',
  'messages.create': 'chat',
  'responses.create': 'chat',
  completions: 'text_completion',
  embeddings: 'embeddings',
};

/** The span of the current upstream call (ended by tracedForward, or with the stream it started). */
export const CALL_SPAN = defineSlot<TraceSpan>('call-span', 'the upstream call span');

export function genaiOperation(operation: string): string {
  return GENAI_OPERATIONS[operation] ?? operation;
}

/**
 * A client span for one upstream call, named `<operation> <model>` as the GenAI conventions
 * ask, with gen_ai.system, gen_ai.operation.name, gen_ai.request.model and the address called.
 */
export function startCallSpan(tracing: Tracing, ctx: GatewayContext<AnyRouteSpec>, target: ResolvedTarget, url: string, part = false): TraceSpan {
  const operation = genaiOperation(ctx.endpoint.operation);
  const model = requestedModel(ctx);
  let address: string | undefined;
  let port: number | undefined;
  try {
    const parsed = new URL(url);
    address = parsed.hostname;
    port = Number(parsed.port) || (parsed.protocol === 'https:' ? 443 : 80);
  } catch {
    address = undefined;
  }
  const span = tracing.startSpan(
    model ? `${operation} ${model}` : operation,
    'client',
    {
      'gen_ai.system': target.provider,
      'gen_ai.operation.name': operation,
      'gen_ai.request.model': model,
      'server.address': address,
      'server.port': port,
      'gateway.target.index': target.index,
    },
    ctx.get(PARENT_SPAN),
  );
  // One call of a fanned-out operation ends once its answer arrived; the call of the answer is the request's.
  if (!part) ctx.set(CALL_SPAN, span);
  return span;
}

/**
 * The forward stage with traces on: the upstream call's span fails with the error the stage
 * throws; a whole answer ends it with the model and tokens the answer reports; a stream's
 * span ends with the stream (endStreamSpan, at the end of the request).
 */
export function tracedForward<C extends GatewayContext>(forward: (ctx: C) => Promise<void>): (ctx: C) => Promise<void> {
  return async (ctx) => {
    try {
      await forward(ctx);
    } catch (err) {
      const span = ctx.get(CALL_SPAN);
      if (span) {
        const e = err as { message?: string; code?: string };
        span.fail(e?.message ?? 'failed', e?.code);
        span.end();
        ctx.set(CALL_SPAN, undefined);
      }
      throw err;
    }
    const span = ctx.get(CALL_SPAN);
    if (span && ctx.response?.kind !== 'stream') {
      setAnswerAttributes(span, factsOf(ctx));
      span.end();
      ctx.set(CALL_SPAN, undefined);
    }
  };
}

/** Ends the span of a streamed answer's call once the request is done (its usage then known). */
export function endStreamSpan(ctx: GatewayContext, facts: AnswerFacts | undefined): void {
  const span = ctx.get(CALL_SPAN);
  if (!span) return;
  if (ctx.error) span.fail(ctx.error.message, ctx.error.code);
  setAnswerAttributes(span, facts);
  span.end();
  ctx.set(CALL_SPAN, undefined);
}

/** Writes what an answer reported onto a span: the model that answered and the tokens used. */
export function setAnswerAttributes(span: TraceSpan, facts: AnswerFacts | undefined): void {
  if (!facts) return;
  span.setAttribute('gen_ai.response.model', facts.model);
  span.setAttribute('gen_ai.usage.input_tokens', facts.input);
  span.setAttribute('gen_ai.usage.output_tokens', facts.output);
}

/** What a metered request used and cost, as the server span shows it. */
export interface SpanUsage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  reasoning: number;
}

/**
 * The usage and cost of a metered request on its server span (contract section 8):
 * gen_ai.usage.* (input counts every prompt token, output every generated one, as the GenAI
 * conventions do) and gateway.cost_usd (the decimal dollar string answers carry; absent when
 * the model has no price).
 */
export function setRequestUsage(ctx: GatewayContext, usage: SpanUsage, costUsd: string | undefined, estimated: boolean): void {
  const span = ctx.get(REQUEST_SPAN);
  if (!span) return;
  span.setAttribute('gen_ai.usage.input_tokens', usage.input + usage.cacheRead + usage.cacheWrite);
  span.setAttribute('gen_ai.usage.output_tokens', usage.output + usage.reasoning);
  if (usage.cacheRead) span.setAttribute('gen_ai.usage.cache_read_input_tokens', usage.cacheRead);
  if (usage.cacheWrite) span.setAttribute('gen_ai.usage.cache_creation_input_tokens', usage.cacheWrite);
  if (usage.reasoning) span.setAttribute('gen_ai.usage.reasoning_tokens', usage.reasoning);
  if (costUsd !== undefined) span.setAttribute('gateway.cost_usd', costUsd);
  if (estimated) span.setAttribute('gateway.usage_estimated', true);
}
