import { ChunkReader } from '../../../contract/openai/chunk-reader.js';
import { transformMapper } from '../providers/shared/stream-mapper.js';
import { chatFromMessages, estimateInputTokens } from './to-chat.js';
import { messageFromChat } from './from-chat.js';
/** The chat call of a Messages call, made once per call. */
function chatCallOf(options) {
    const calls = new WeakMap();
    return (call) => {
        let chat = calls.get(call);
        if (!chat) {
            chat = { ...call, operation: 'chat.completions', body: chatFromMessages(call.body ?? {}, options), rawBody: undefined };
            calls.set(call, chat);
        }
        return chat;
    };
}
export function messagesViaChat(chat, options = {}) {
    const chatCall = chatCallOf(options);
    const adapter = {
        request: (call, provider) => chat.request(chatCall(call), provider),
        response: (body, call) => {
            const completion = chat.response ? chat.response(body, chatCall(call)) : body;
            return messageFromChat(completion, call.body?.model);
        },
    };
    const stream = chat.stream;
    if (stream) {
        adapter.stream = {
            framing: stream.framing,
            createMapper(call) {
                const chatBody = chatCall(call).body;
                const inner = stream.createMapper(chatCall(call));
                const reader = new ChunkReader();
                return transformMapper(inner, (parts) => {
                    const out = [];
                    for (const part of parts) {
                        if (part.type === 'chunk')
                            out.push(...reader.read(part.data));
                        else
                            out.push(part);
                    }
                    for (const part of out) {
                        // Anthropic clients read the input tokens from message_start: an estimate until the provider tells
                        if (part.type === 'meta' && part.inputTokens === undefined)
                            part.inputTokens = estimateInputTokens(chatBody);
                    }
                    return out;
                });
            },
        };
    }
    return adapter;
}
/** /v1/messages/count_tokens through a provider's chat-request token counter. */
export function countTokensViaChat(counter, options = {}) {
    const chatCall = chatCallOf(options);
    return {
        request: (call, provider) => counter.request(chatCall(call), provider),
        response: (body, call) => (counter.response ? counter.response(body, chatCall(call)) : body),
    };
}
//# sourceMappingURL=messages-via-chat.js.map