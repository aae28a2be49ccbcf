import type { GatewayContext } from '../../../kernel/engine/context.js';
import { defineSlot } from '../../../kernel/engine/slot.js';
import { BODY } from '../../../kernel/engine/request-body.js';
import { TARGET, USAGE } from '../model-request.js';
import { scanAnswer, usageFacts, type AnswerFacts } from './usage-scan.js';

const FACTS = defineSlot<AnswerFacts | null>('answer-facts', 'the answer facts', { edge: true });

/** The model the request asked for (override_params applied), when it names one. */
export function requestedModel(ctx: GatewayContext): string | undefined {
  const override = ctx.get(TARGET)?.overrideParams?.model;
  if (typeof override === 'string') return override;
  const model = ctx.get(BODY)?.model;
  return typeof model === 'string' ? model : undefined;
}

/**
 * The tokens a finished model answer used and the model that answered: a stream's usage (noted
 * when it ended), a translated answer's `usage`, or the usage found in the bytes of an answer
 * that passed through.
 */
export function factsOf(ctx: GatewayContext): AnswerFacts | undefined {
  const response = ctx.response;
  const streamed = ctx.get(USAGE);
  if (streamed) return usageFacts(streamed as Record<string, unknown>);
  if (response?.kind !== 'json' || response.status >= 300) return undefined;
  if (response.body && typeof response.body === 'object') {
    const body = response.body as { usage?: Record<string, unknown>; model?: unknown };
    return usageFacts(body.usage, body.model);
  }
  return response.raw ? scanAnswer(response.raw) : undefined;
}

/** factsOf the request's final answer, worked out once (metrics and traces both read it). */
export function answerFacts(ctx: GatewayContext): AnswerFacts | undefined {
  const known = ctx.get(FACTS);
  if (known !== undefined) return known ?? undefined;
  const facts = factsOf(ctx);
  ctx.set(FACTS, facts ?? null);
  return facts;
}
