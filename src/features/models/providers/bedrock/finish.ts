import type { FinishReason, Usage } from '../../../../contract/stream-parts.js';
import { usageOf } from '../shared/openai-answer.js';
import { objectOf } from '../../../../contract/json.js';

/** Converse stopReason -> OpenAI finish_reason. */
const FINISH: Record<string, FinishReason> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  tool_use: 'tool_calls',
  guardrail_intervened: 'content_filter',
  content_filtered: 'content_filter',
};

export function finishReason(stopReason: unknown): FinishReason {
  return FINISH[String(stopReason)] ?? 'stop';
}

/** Converse usage -> OpenAI usage (cache reads and writes count as prompt tokens). */
export function usageFrom(value: unknown): Usage {
  const usage = objectOf(value);
  const cacheRead = Number(usage.cacheReadInputTokens ?? 0);
  const cacheWrite = Number(usage.cacheWriteInputTokens ?? 0);
  return usageOf(Number(usage.inputTokens ?? 0) + cacheRead + cacheWrite, Number(usage.outputTokens ?? 0), cacheRead, 0, Number.isFinite(cacheWrite) ? cacheWrite : 0);
}
