import { randomUUID } from 'node:crypto';
import type { FinishReason, Usage } from '../../protocol/stream-parts.js';

/** What a translated provider's answer says, before it is written in OpenAI's shape. */
export interface ChatAnswer {
  id: string;
  model: string;
  created?: number;
  /** The answer's text ('' when none). */
  text: string;
  toolCalls: Array<{ id: string; name: string; arguments: string }>;
  finishReason: FinishReason;
  usage: Usage;
}

export function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

/** A fresh id for answers whose provider gives none. */
export function newCompletionId(prefix = 'chatcmpl'): string {
  return `${prefix}-${randomUUID().replace(/-/g, '')}`;
}

/** OpenAI usage from token counts; cached prompt tokens are reported under prompt_tokens_details. */
export function usageOf(promptTokens: number, completionTokens: number, cachedTokens = 0): Usage {
  const prompt = Number.isFinite(promptTokens) ? promptTokens : 0;
  const completion = Number.isFinite(completionTokens) ? completionTokens : 0;
  const usage: Usage = { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
  if (cachedTokens > 0) usage.prompt_tokens_details = { cached_tokens: cachedTokens };
  return usage;
}

/** The OpenAI chat.completion object. Content is null when the answer is only tool calls. */
export function chatCompletion(answer: ChatAnswer) {
  const message: Record<string, unknown> = {
    role: 'assistant',
    content: answer.text === '' && answer.toolCalls.length > 0 ? null : answer.text,
    refusal: null,
  };
  if (answer.toolCalls.length > 0) {
    message.tool_calls = answer.toolCalls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } }));
  }
  return {
    id: answer.id,
    object: 'chat.completion',
    created: answer.created ?? nowSeconds(),
    model: answer.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: answer.finishReason }],
    usage: answer.usage,
  };
}
