import { randomUUID } from 'node:crypto';
import type { FinishReason, ThinkingBlock, Usage } from '../../../../contract/stream-parts.js';

/** What a translated provider's answer says, before it is written in OpenAI's shape. */
export interface ChatAnswer {
  id: string;
  model: string;
  created?: number;
  /** The answer's text ('' when none). */
  text: string;
  /** Reasoning signatures riding on a call (Gemini) go back with it in `extra_content`. */
  toolCalls: Array<{ id: string; name: string; arguments: string; signature?: string }>;
  finishReason: FinishReason;
  usage: Usage;
  /** The model's reasoning text (`message.reasoning_content`), when the provider returns it. */
  reasoning?: string;
  /** The reasoning blocks with their signatures (`message.thinking_blocks`), where the provider gives blocks. */
  thinkingBlocks?: ThinkingBlock[];
}

export function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

/** A fresh id for answers whose provider gives none. */
export function newCompletionId(prefix = 'chatcmpl'): string {
  return `${prefix}-${randomUUID().replace(/-/g, '')}`;
}

/**
 * OpenAI usage from token counts; cached prompt tokens (read from a provider's prompt cache) are
 * reported under prompt_tokens_details.cached_tokens and tokens written into it under
 * prompt_tokens_details.cache_write_tokens (as OpenRouter reports them: OpenAI has no such class,
 * and a cache write is priced apart), both already counted in prompt_tokens; reasoning tokens
 * (already counted in the completion) under completion_tokens_details.
 */
export function usageOf(promptTokens: number, completionTokens: number, cachedTokens = 0, reasoningTokens = 0, cacheWriteTokens = 0): Usage {
  const prompt = Number.isFinite(promptTokens) ? promptTokens : 0;
  const completion = Number.isFinite(completionTokens) ? completionTokens : 0;
  const usage: Usage = { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
  if (cachedTokens > 0 || cacheWriteTokens > 0) {
    usage.prompt_tokens_details = { cached_tokens: cachedTokens };
    if (cacheWriteTokens > 0) usage.prompt_tokens_details.cache_write_tokens = cacheWriteTokens;
  }
  if (reasoningTokens > 0) usage.completion_tokens_details = { reasoning_tokens: reasoningTokens };
  return usage;
}

/** The OpenAI chat.completion object. Content is null when the answer is only tool calls. */
export function chatCompletion(answer: ChatAnswer) {
  const message: Record<string, unknown> = {
    role: 'assistant',
    content: answer.text === '' && answer.toolCalls.length > 0 ? null : answer.text,
    refusal: null,
  };
  const blocks = answer.thinkingBlocks ?? [];
  if (answer.reasoning || blocks.length > 0) message.reasoning_content = answer.reasoning ?? '';
  if (blocks.length > 0) message.thinking_blocks = blocks;
  if (answer.toolCalls.length > 0) message.tool_calls = answer.toolCalls.map(toolCallOf);
  return {
    id: answer.id,
    object: 'chat.completion',
    created: answer.created ?? nowSeconds(),
    model: answer.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: answer.finishReason }],
    usage: answer.usage,
  };
}

/** A tool call of an answer; a reasoning signature riding on it goes where Google's OpenAI-compatible API puts it. */
export function toolCallOf(call: { id: string; name: string; arguments: string; signature?: string }): Record<string, unknown> {
  const out: Record<string, unknown> = { id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } };
  if (call.signature) out.extra_content = { google: { thought_signature: call.signature } };
  return out;
}
