import type { ProviderCall } from '../provider.js';
import { chatCompletion, newCompletionId, type ChatAnswer } from '../shared/openai-answer.js';
import { finishReason, usageFrom } from './finish.js';

/** A Converse answer -> an OpenAI chat.completion (Bedrock gives no id: one is made). */
export function fromConverse(body: any, call: ProviderCall) {
  const answer: ChatAnswer = {
    id: newCompletionId(),
    model: String(call.body?.model ?? ''),
    text: '',
    toolCalls: [],
    finishReason: finishReason(body?.stopReason),
    usage: usageFrom(body?.usage),
  };
  const content = body?.output?.message?.content;
  for (const block of Array.isArray(content) ? content : []) {
    if (typeof block?.text === 'string') answer.text += block.text;
    else if (block?.toolUse) {
      answer.toolCalls.push({ id: String(block.toolUse.toolUseId), name: String(block.toolUse.name), arguments: JSON.stringify(block.toolUse.input ?? {}) });
    }
  }
  return chatCompletion(answer);
}
