/**
 * An OpenAI chat.completion -> an Anthropic Message: thinking blocks first (reasoning text
 * without blocks becomes one unsigned thinking block), then the text, then tool_use blocks
 * with the call ids as their ids (a reasoning signature riding on a call goes in an empty
 * thinking block right before it); usage with the cached prompt tokens apart.
 */
import { anthropicUsage, messageIdOf, stopReasonOf } from '../../../contract/anthropic/shapes.js';
import type { ChatAnswer, ChatAnswerChoice, ChatAnswerMessage, ChatAnswerToolCall } from '../../../contract/openai/chat-answer.js';
import type { FinishReason, Usage } from '../../../contract/stream-parts.js';

type Json = Record<string, unknown>;

function toolInput(args: unknown): Json {
  if (typeof args !== 'string' || args === '') return {};
  try {
    const parsed = JSON.parse(args);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? parsed : { value: parsed };
  } catch {
    return {};
  }
}

export function messageFromChat(chat: ChatAnswer | null | undefined, requestedModel: unknown): Json {
  const choice: ChatAnswerChoice = chat?.choices?.[0] ?? {};
  const message: ChatAnswerMessage = choice.message ?? {};
  const content: Json[] = [];
  const blocks: Json[] = Array.isArray(message.thinking_blocks) ? message.thinking_blocks : [];
  if (blocks.length > 0) {
    for (const b of blocks)
      content.push(b.type === 'redacted_thinking' ? { type: 'redacted_thinking', data: b.data } : { type: 'thinking', thinking: b.thinking ?? '', signature: b.signature ?? '' });
  } else if (typeof message.reasoning_content === 'string' && message.reasoning_content !== '') {
    content.push({ type: 'thinking', thinking: message.reasoning_content, signature: '' });
  }
  if (typeof message.content === 'string' && message.content !== '') content.push({ type: 'text', text: message.content });
  for (const call of (Array.isArray(message.tool_calls) ? message.tool_calls : []) as ChatAnswerToolCall[]) {
    const signature = call?.extra_content?.google?.thought_signature;
    if (typeof signature === 'string' && signature !== '') content.push({ type: 'thinking', thinking: '', signature });
    content.push({ type: 'tool_use', id: String(call.id), name: String(call.function?.name ?? ''), input: toolInput(call.function?.arguments) });
  }
  return {
    id: messageIdOf(chat?.id),
    type: 'message',
    role: 'assistant',
    model: String(chat?.model ?? requestedModel ?? ''),
    content,
    stop_reason: stopReasonOf(choice.finish_reason as FinishReason | undefined),
    stop_sequence: null,
    usage: anthropicUsage(chat?.usage as Usage | undefined),
  };
}
