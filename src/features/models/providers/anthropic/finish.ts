import type { FinishReason, Usage } from '../../../../contract/stream-parts.js';
import { usageOf } from '../shared/openai-answer.js';
import { objectOf } from '../../../../contract/json.js';

/** Anthropic stop_reason -> OpenAI finish_reason. */
const FINISH: Record<string, FinishReason> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  pause_turn: 'stop',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  tool_use: 'tool_calls',
  refusal: 'content_filter',
};

/** A tool_use stop is a plain stop when the tool was the forced json_response tool. */
export function finishReason(stopReason: unknown, answeredThroughJsonTool: boolean): FinishReason {
  const reason = FINISH[String(stopReason)] ?? 'stop';
  return reason === 'tool_calls' && answeredThroughJsonTool ? 'stop' : reason;
}

/** Anthropic usage -> OpenAI usage: input, cache-write and cache-read tokens all count as prompt tokens. */
export function usageFrom(value: unknown): Usage {
  const usage = objectOf(value);
  const cacheWrite = Number(usage.cache_creation_input_tokens ?? 0);
  const cacheRead = Number(usage.cache_read_input_tokens ?? 0);
  return usageOf(Number(usage.input_tokens ?? 0) + cacheWrite + cacheRead, Number(usage.output_tokens ?? 0), cacheRead, 0, Number.isFinite(cacheWrite) ? cacheWrite : 0);
}
