import type { ProviderCall } from '../provider.js';
import type { ThinkingBlock } from '../../../../contract/stream-parts.js';
import { chatCompletion, type ChatAnswer } from '../shared/openai-answer.js';
import { answersThroughJsonTool, JSON_RESPONSE_TOOL } from '../shared/json-response.js';
import { forcedJsonTool } from './request.js';
import { finishReason, usageFrom } from './finish.js';
import { objectOf, objectsOf } from '../../../../contract/json.js';
import { notAnAnswer } from '../shared/answer-shape.js';

/**
 * An Anthropic Message -> an OpenAI chat.completion. Tool call ids (toolu_...) are kept;
 * thinking blocks become `reasoning_content` (their text) and `thinking_blocks` (each block
 * with its signature; redacted blocks as their data).
 */
export function fromAnthropicMessage(raw: unknown, call: ProviderCall) {
  const body = objectOf(raw);
  // A Message always has its content array (empty with a stop reason is a legitimate answer).
  if (!Array.isArray(body.content) || (body.type !== undefined && body.type !== 'message')) throw notAnAnswer('anthropic', 'a Messages object');
  const request = objectOf(call.body);
  const jsonTool = answersThroughJsonTool(request, forcedJsonTool(request));
  const blocks: ThinkingBlock[] = [];
  const answer: ChatAnswer = {
    id: String(body.id ?? ''),
    model: String(body.model ?? request.model ?? ''),
    text: '',
    toolCalls: [],
    finishReason: finishReason(body.stop_reason, jsonTool),
    usage: usageFrom(body.usage),
    reasoning: '',
    thinkingBlocks: blocks,
  };
  for (const block of objectsOf(body.content)) {
    if (block.type === 'text') answer.text += String(block.text ?? '');
    else if (block.type === 'thinking') {
      const thinking = String(block.thinking ?? '');
      answer.reasoning += thinking;
      blocks.push(typeof block.signature === 'string' ? { type: 'thinking', thinking, signature: block.signature } : { type: 'thinking', thinking });
    } else if (block.type === 'redacted_thinking') {
      blocks.push({ type: 'redacted_thinking', data: String(block.data ?? '') });
    } else if (block.type === 'tool_use') {
      const args = JSON.stringify(block.input ?? {});
      if (jsonTool && block.name === JSON_RESPONSE_TOOL) answer.text += args;
      else answer.toolCalls.push({ id: String(block.id), name: String(block.name), arguments: args });
    }
  }
  return chatCompletion(answer);
}
