import { ChunkReader } from '../../../contract/openai/chunk-reader.js';
import { transformMapper } from '../providers/shared/stream-mapper.js';
import { chatFromResponses } from './to-chat.js';
import { responseFromChat } from './from-chat.js';
export function responsesViaChat(chat) {
    const calls = new WeakMap();
    const chatCall = (call) => {
        let out = calls.get(call);
        if (!out) {
            out = { ...call, operation: 'chat.completions', body: chatFromResponses(call.body ?? {}), rawBody: undefined };
            calls.set(call, out);
        }
        return out;
    };
    const adapter = {
        request: (call, provider) => chat.request(chatCall(call), provider),
        response: (body, call) => responseFromChat(chat.response ? chat.response(body, chatCall(call)) : body, call.body ?? {}),
    };
    const stream = chat.stream;
    if (stream) {
        adapter.stream = {
            framing: stream.framing,
            createMapper(call) {
                const inner = stream.createMapper(chatCall(call));
                const reader = new ChunkReader();
                return transformMapper(inner, (parts) => {
                    if (!parts.some((p) => p.type === 'chunk'))
                        return parts;
                    const out = [];
                    for (const part of parts) {
                        if (part.type === 'chunk')
                            out.push(...reader.read(part.data));
                        else
                            out.push(part);
                    }
                    return out;
                });
            },
        };
    }
    return adapter;
}
//# sourceMappingURL=responses-via-chat.js.map