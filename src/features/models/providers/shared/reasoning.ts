import { badRequest, semanticError } from '../../../../contract/errors/gateway-error.js';
import type { ThinkingBlock } from '../../../../contract/stream-parts.js';
import { isJsonObject, objectOf } from '../../../../contract/json.js';

/**
 * Reasoning in OpenAI-shaped requests, read once for every translated provider:
 * `reasoning_effort` and the budgets it stands for, the `thinking_blocks` an assistant message
 * carries back, and the reasoning signatures riding on tool calls.
 */
export type ReasoningEffort = 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh' | 'max';

const EFFORTS = new Set<ReasoningEffort>(['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max']);

/** Thinking budgets (tokens) of each effort, for providers whose control is a token budget. */
export const THINKING_BUDGETS: Record<Exclude<ReasoningEffort, 'none'>, number> = {
  minimal: 1024,
  low: 2048,
  medium: 8192,
  high: 16384,
  xhigh: 32768,
  // kept with the default answer allowance below the 64k output of current Claude models
  max: 57344,
};

/** The smallest budget Anthropic-family models take. */
export const MIN_THINKING_BUDGET = 1024;

/** The request's reasoning_effort, checked; undefined when absent. */
export function reasoningEffort(request: Record<string, unknown>): ReasoningEffort | undefined {
  const effort = request.reasoning_effort;
  if (effort === undefined || effort === null) return undefined;
  if (typeof effort !== 'string' || !EFFORTS.has(effort as ReasoningEffort)) {
    throw badRequest('reasoning_effort must be one of none, minimal, low, medium, high, xhigh, max.', 'reasoning_effort');
  }
  return effort as ReasoningEffort;
}

/** The effort that a thinking budget is closest to (Anthropic clients speak budgets). */
export function effortOfBudget(budget: number): Exclude<ReasoningEffort, 'none'> {
  if (budget <= THINKING_BUDGETS.minimal) return 'minimal';
  if (budget <= THINKING_BUDGETS.low) return 'low';
  if (budget <= THINKING_BUDGETS.medium) return 'medium';
  if (budget <= THINKING_BUDGETS.high) return 'high';
  return 'xhigh';
}

/**
 * Anthropic's `thinking` setting for a request: the caller's own `thinking` field when given,
 * else one derived from reasoning_effort (budget clamped below max_tokens, which is raised
 * when the caller set none). Returns the setting and the max_tokens to send.
 */
export function anthropicThinking(
  request: Record<string, unknown>,
  maxTokens: number | undefined,
  defaultMaxTokens: number,
): { thinking?: Record<string, unknown>; maxTokens: number } {
  if (isJsonObject(request.thinking)) return { thinking: request.thinking, maxTokens: maxTokens ?? defaultMaxTokens };
  const effort = reasoningEffort(request);
  if (!effort || effort === 'none') return { maxTokens: maxTokens ?? defaultMaxTokens };
  let budget = THINKING_BUDGETS[effort];
  if (maxTokens === undefined) return { thinking: { type: 'enabled', budget_tokens: budget }, maxTokens: budget + defaultMaxTokens };
  if (budget >= maxTokens) budget = maxTokens - 1;
  if (budget < MIN_THINKING_BUDGET) {
    // Both values are well-formed; together they leave this provider no room to think (422).
    throw semanticError(
      `reasoning_effort needs max_tokens above ${MIN_THINKING_BUDGET} with this provider (the thinking budget must be at least ${MIN_THINKING_BUDGET} tokens).`,
      'max_tokens',
    );
  }
  return { thinking: { type: 'enabled', budget_tokens: budget }, maxTokens };
}

/** True when the request turns thinking on (Anthropic-family models then refuse forced tools). */
export function thinkingRequested(request: Record<string, unknown>): boolean {
  if (isJsonObject(request.thinking)) return request.thinking.type === 'enabled' || request.thinking.type === 'adaptive';
  const effort = request.reasoning_effort;
  return typeof effort === 'string' && effort !== 'none';
}

/** The thinking blocks an assistant message carries back, checked. */
export function thinkingBlocksOf(message: Record<string, unknown>, param: string): ThinkingBlock[] {
  const blocks = message.thinking_blocks;
  if (blocks === undefined || blocks === null) return [];
  if (!Array.isArray(blocks)) throw badRequest(`${param}.thinking_blocks must be a list.`, `${param}.thinking_blocks`);
  return blocks.map((item: unknown, i: number): ThinkingBlock => {
    const block = objectOf(item);
    const where = `${param}.thinking_blocks[${i}]`;
    if (block.type === 'thinking') {
      if (typeof block.thinking !== 'string') throw badRequest(`${where}.thinking must be a string.`, `${where}.thinking`);
      if (block.signature !== undefined && block.signature !== null && typeof block.signature !== 'string') {
        throw badRequest(`${where}.signature must be a string.`, `${where}.signature`);
      }
      return typeof block.signature === 'string' ? { type: 'thinking', thinking: block.thinking, signature: block.signature } : { type: 'thinking', thinking: block.thinking };
    }
    if (block.type === 'redacted_thinking') {
      if (typeof block.data !== 'string') throw badRequest(`${where}.data must be a string.`, `${where}.data`);
      return { type: 'redacted_thinking', data: block.data };
    }
    throw badRequest(`${where}.type must be thinking or redacted_thinking.`, `${where}.type`);
  });
}

/** The reasoning signature riding on a tool call (`extra_content.google.thought_signature`), if any. */
export function toolCallSignature(call: Record<string, unknown>): string | undefined {
  const signature = objectOf(objectOf(call.extra_content).google).thought_signature;
  return typeof signature === 'string' && signature !== '' ? signature : undefined;
}
