/**
 * An OpenAI chat.completion -> a Responses API response with an id of the gateway's own: reasoning items (one per thinking
 * block, or one for reasoning text without blocks), the message, the function calls; status
 * incomplete for answers cut by the token limit or a content filter; usage in Responses' names.
 */
import {
  completionOf,
  functionCallItem,
  messageItem,
  outputItemId,
  reasoningItem,
  newResponseId,
  responseObject,
  responsesUsage,
} from '../../../contract/openai/responses-shapes.js';
import type { ChatAnswer, ChatAnswerChoice, ChatAnswerMessage, ChatAnswerToolCall } from '../../../contract/openai/chat-answer.js';
import type { FinishReason, ThinkingBlock, Usage } from '../../../contract/stream-parts.js';

type Json = Record<string, unknown>;

export function responseFromChat(chat: ChatAnswer | null | undefined, request: Json): Json {
  // the gateway's own id: an upstream's chat ids repeat (Ollama) and would name another caller's response
  const id = newResponseId();
  const choice: ChatAnswerChoice = chat?.choices?.[0] ?? {};
  const message: ChatAnswerMessage = choice.message ?? {};
  const output: Json[] = [];
  const blocks: ThinkingBlock[] = Array.isArray(message.thinking_blocks) ? message.thinking_blocks : [];
  if (blocks.length > 0) for (const block of blocks) output.push(reasoningItem(outputItemId('rs', id, output.length), block));
  else if (typeof message.reasoning_content === 'string' && message.reasoning_content !== '') {
    output.push(reasoningItem(outputItemId('rs', id, output.length), { type: 'thinking', thinking: message.reasoning_content }));
  }
  if (typeof message.content === 'string' && message.content !== '') output.push(messageItem(outputItemId('msg', id, output.length), message.content));
  for (const call of (Array.isArray(message.tool_calls) ? message.tool_calls : []) as ChatAnswerToolCall[]) {
    const signature = call?.extra_content?.google?.thought_signature;
    output.push(
      functionCallItem(
        outputItemId('fc', id, output.length),
        String(call.id),
        String(call.function?.name ?? ''),
        String(call.function?.arguments ?? ''),
        typeof signature === 'string' ? signature : undefined,
      ),
    );
  }
  const { status, incomplete } = completionOf(choice.finish_reason as FinishReason | undefined);
  return responseObject(
    {
      id,
      createdAt: typeof chat?.created === 'number' ? chat.created : Math.floor(Date.now() / 1000),
      model: String(chat?.model ?? request.model ?? ''),
      status,
      incomplete,
      output,
      usage: responsesUsage(chat?.usage as Usage | undefined),
    },
    request,
  );
}
