/**
 * POST /v1/responses on a provider without the Responses API, built on its chat translation:
 * the request becomes a chat request (./to-chat.ts), the chat answer a response
 * (./from-chat.ts), and the chat stream's parts are written as Responses events by the edge
 * (OpenAI chunks of OpenAI-compatible providers are read back into parts).
 */
import type { ChatAnswer } from '../../../contract/openai/chat-answer.js';
import type { StreamPart } from '../../../contract/stream-parts.js';
import type { ResponsesCreateRequest } from '../../../generated/requests/responses-create.js';
import { ChunkReader } from '../../../contract/openai/chunk-reader.js';
import { newResponseId } from '../../../contract/openai/responses-shapes.js';
import type { OperationAdapter, ProviderCall } from '../providers/provider.js';
import { objectMemo } from '../providers/shared/object-memo.js';
import { chunkReadingMapper } from '../providers/shared/stream-mapper.js';
import { chatFromResponses } from './to-chat.js';
import { responseFromChat } from './from-chat.js';

export function responsesViaChat(chat: OperationAdapter): OperationAdapter {
  const chatCall = objectMemo((call: ProviderCall): ProviderCall => ({
    ...call,
    operation: 'chat.completions',
    body: chatFromResponses((call.body ?? {}) as ResponsesCreateRequest),
    rawBody: undefined,
  }));
  const adapter: OperationAdapter = {
    request: (call, provider) => chat.request(chatCall(call), provider),
    response: (body, call) => responseFromChat((chat.response ? chat.response(body, chatCall(call)) : body) as ChatAnswer | undefined, call.body ?? {}),
  };
  const stream = chat.stream;
  if (stream) {
    adapter.stream = {
      framing: stream.framing,
      createMapper(call) {
        const inner = stream.createMapper(chatCall(call));
        const reader = new ChunkReader();
        // One id of the gateway's own for this answer, on every meta part (never the upstream's);
        // the answer starts with a meta part, so every writer of it names the same id.
        const id = newResponseId();
        let started = false;
        return chunkReadingMapper(inner, reader, (parts) => {
          const out: StreamPart[] = [];
          for (const part of parts) {
            if (part.type === 'chunk') for (const read of reader.read(part.data)) out.push(read.type === 'meta' ? { ...read, id } : read);
            else out.push(part.type === 'meta' ? { ...part, id } : part);
          }
          if (!started && out.length > 0) {
            started = true;
            if (out[0]!.type !== 'meta') out.unshift({ type: 'meta', id, model: String(call.body?.model ?? ''), created: Math.floor(Date.now() / 1000) });
          }
          return out;
        });
      },
    };
  }
  return adapter;
}
