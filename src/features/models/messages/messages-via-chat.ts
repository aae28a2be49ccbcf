/**
 * /v1/messages and /v1/messages/count_tokens on a provider without Anthropic's API, built on
 * its chat translation: the Messages request becomes a chat request (./to-chat.ts), the chat
 * answer a Message (./from-chat.ts), and the chat stream's parts are written as Anthropic
 * events by the edge (OpenAI chunks of OpenAI-compatible providers are read back into parts).
 */
import type { ChatAnswer } from '../../../contract/openai/chat-answer.js';
import type { StreamPart } from '../../../contract/stream-parts.js';
import type { MessagesCreateRequest } from '../../../generated/requests/messages-create.js';
import { ChunkReader } from '../../../contract/openai/chunk-reader.js';
import type { OperationAdapter, ProviderCall } from '../providers/provider.js';
import { objectMemo } from '../providers/shared/object-memo.js';
import { chunkReadingMapper } from '../providers/shared/stream-mapper.js';
import { chatFromMessages, estimateInputTokens, type MessagesTranslationOptions } from './to-chat.js';
import { messageFromChat } from './from-chat.js';

/** The chat call of a Messages call, made once per call and kept on it (see objectMemo). */
function chatCallOf(options: MessagesTranslationOptions) {
  return objectMemo((call: ProviderCall): ProviderCall => ({
    ...call,
    operation: 'chat.completions',
    body: chatFromMessages((call.body ?? {}) as MessagesCreateRequest, options),
    rawBody: undefined,
  }));
}

export function messagesViaChat(chat: OperationAdapter, options: MessagesTranslationOptions = {}): OperationAdapter {
  const chatCall = chatCallOf(options);
  const adapter: OperationAdapter = {
    request: (call, provider) => chat.request(chatCall(call), provider),
    response: (body, call) => {
      const completion = chat.response ? chat.response(body, chatCall(call)) : body;
      return messageFromChat(completion as ChatAnswer | undefined, call.body?.model);
    },
  };
  const stream = chat.stream;
  if (stream) {
    adapter.stream = {
      framing: stream.framing,
      createMapper(call) {
        const chatBody = chatCall(call).body ?? {};
        const inner = stream.createMapper(chatCall(call));
        const reader = new ChunkReader();
        return chunkReadingMapper(inner, reader, (parts) => {
          const out: StreamPart[] = [];
          for (const part of parts) {
            if (part.type === 'chunk') out.push(...reader.read(part.data));
            else out.push(part);
          }
          for (const part of out) {
            // Anthropic clients read the input tokens from message_start: an estimate until the provider tells
            if (part.type === 'meta' && part.inputTokens === undefined) part.inputTokens = estimateInputTokens(chatBody);
          }
          return out;
        });
      },
    };
  }
  return adapter;
}

/** /v1/messages/count_tokens through a provider's chat-request token counter. */
export function countTokensViaChat(counter: OperationAdapter, options: MessagesTranslationOptions = {}): OperationAdapter {
  const chatCall = chatCallOf(options);
  return {
    request: (call, provider) => counter.request(chatCall(call), provider),
    response: (body, call) => (counter.response ? counter.response(body, chatCall(call)) : body),
  };
}
