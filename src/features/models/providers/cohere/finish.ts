import { GatewayError } from '../../../../contract/errors/gateway-error.js';
import type { FinishReason, Usage } from '../../../../contract/stream-parts.js';
import { usageOf } from '../shared/openai-answer.js';
import { objectOf } from '../../../../contract/json.js';

/** Cohere finish_reason -> OpenAI finish_reason; ERROR and TIMEOUT are failures. */
const FINISH: Record<string, FinishReason> = {
  COMPLETE: 'stop',
  STOP_SEQUENCE: 'stop',
  MAX_TOKENS: 'length',
  TOOL_CALL: 'tool_calls',
};

export function finishReason(reason: unknown): FinishReason {
  const mapped = FINISH[String(reason)];
  if (mapped) return mapped;
  if (reason === 'ERROR' || reason === 'TIMEOUT') {
    throw new GatewayError('provider_error', `cohere ended the answer with ${reason}.`, { provider: 'cohere', retryable: true });
  }
  return 'stop';
}

/** Cohere usage: billed units (what the caller pays for) when given, else raw token counts; cached tokens when reported. */
export function usageFrom(value: unknown): Usage {
  const usage = objectOf(value);
  const counts = objectOf(usage.billed_units ?? usage.tokens);
  return usageOf(Number(counts.input_tokens ?? 0), Number(counts.output_tokens ?? 0), Number(usage.cached_tokens ?? 0));
}
