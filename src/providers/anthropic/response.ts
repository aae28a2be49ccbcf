import type { ProviderCall } from '../provider.js';
import { chatCompletion, type ChatAnswer } from '../shared/openai-answer.js';
import { answersThroughJsonTool, JSON_RESPONSE_TOOL } from '../shared/json-response.js';
import { FORCED_JSON_TOOL } from './request.js';
import { finishReason, usageFrom } from './finish.js';

/** An Anthropic Message -> an OpenAI chat.completion. Tool call ids (toolu_...) are kept. */
export function fromAnthropicMessage(body: any, call: ProviderCall) {
  const jsonTool = answersThroughJsonTool(call.body ?? {}, FORCED_JSON_TOOL);
  const answer: ChatAnswer = {
    id: String(body?.id ?? ''),
    model: String(body?.model ?? call.body?.model ?? ''),
    text: '',
    toolCalls: [],
    finishReason: finishReason(body?.stop_reason, jsonTool),
    usage: usageFrom(body?.usage),
  };
  for (const block of Array.isArray(body?.content) ? body.content : []) {
    if (block?.type === 'text') answer.text += String(block.text ?? '');
    else if (block?.type === 'tool_use') {
      const args = JSON.stringify(block.input ?? {});
      if (jsonTool && block.name === JSON_RESPONSE_TOOL) answer.text += args;
      else answer.toolCalls.push({ id: String(block.id), name: String(block.name), arguments: args });
    }
  }
  return chatCompletion(answer);
}
