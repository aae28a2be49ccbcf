import { toGeminiRequest } from './chat-request.js';
import { toChatCompletion } from './chat-response.js';
import { geminiStream } from './chat-stream.js';
import { locate } from './gemini-endpoint.js';
export function geminiChatAdapter(provider, endpoint) {
    return {
        async request(call) {
            const body = JSON.stringify(toGeminiRequest(call.body));
            const { url, headers } = await locate(endpoint, call, call.stream ? 'streamGenerateContent?alt=sse' : 'generateContent');
            return { method: 'POST', url, headers: { ...headers, 'content-type': 'application/json' }, body };
        },
        response: (body, call) => toChatCompletion(body, call.body?.model),
        stream: geminiStream(provider),
    };
}
//# sourceMappingURL=chat-adapter.js.map