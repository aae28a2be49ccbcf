import type { ProviderCall } from '../provider.js';
import type { ThinkingBlock } from '../../../../contract/stream-parts.js';
import { chatCompletion, newCompletionId, type ChatAnswer } from '../shared/openai-answer.js';
import { finishReason, usageFrom } from './finish.js';
import { isJsonObject, objectOf, objectsOf } from '../../../../contract/json.js';
import { notAnAnswer } from '../shared/answer-shape.js';

/** A reasoningContent block -> a thinking block (text with its signature, or the redacted bytes). */
export function thinkingBlockOf(value: unknown): ThinkingBlock | undefined {
  const reasoning = objectOf(value);
  if (reasoning.reasoningText) {
    const reasoningText = objectOf(reasoning.reasoningText);
    const text = String(reasoningText.text ?? '');
    const signature = reasoningText.signature;
    return typeof signature === 'string' ? { type: 'thinking', thinking: text, signature } : { type: 'thinking', thinking: text };
  }
  if (typeof reasoning.redactedContent === 'string') return { type: 'redacted_thinking', data: reasoning.redactedContent };
  return undefined;
}

/**
 * A Converse answer -> an OpenAI chat.completion (Bedrock gives no id: one is made).
 * reasoningContent blocks become `reasoning_content` and `thinking_blocks`.
 */
export function fromConverse(raw: unknown, call: ProviderCall) {
  const body = objectOf(raw);
  if (!isJsonObject(body.output)) throw notAnAnswer('bedrock', 'a Converse answer');
  const blocks: ThinkingBlock[] = [];
  const answer: ChatAnswer = {
    id: newCompletionId(),
    model: String(objectOf(call.body).model ?? ''),
    text: '',
    toolCalls: [],
    finishReason: finishReason(body.stopReason),
    usage: usageFrom(body.usage),
    reasoning: '',
    thinkingBlocks: blocks,
  };
  const content = objectOf(objectOf(body.output).message).content;
  for (const block of objectsOf(content)) {
    if (typeof block.text === 'string') answer.text += block.text;
    else if (block.reasoningContent) {
      const thinking = thinkingBlockOf(block.reasoningContent);
      if (!thinking) continue;
      if (thinking.type === 'thinking') answer.reasoning += thinking.thinking;
      blocks.push(thinking);
    } else if (block.toolUse) {
      const toolUse = objectOf(block.toolUse);
      answer.toolCalls.push({ id: String(toolUse.toolUseId), name: String(toolUse.name), arguments: JSON.stringify(toolUse.input ?? {}) });
    }
  }
  return chatCompletion(answer);
}
