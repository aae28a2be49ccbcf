/** POST /v1/chat/completions on a Gemini-format host: generateContent / streamGenerateContent. */
import { objectOf } from '../../../../contract/json.js';
import type { OperationAdapter, ProviderCall } from '../provider.js';
import { toGeminiRequest } from './chat-request.js';
import { toChatCompletion } from './chat-response.js';
import { geminiStream } from './chat-stream.js';
import { locate, type GeminiEndpoint } from './gemini-endpoint.js';

export function geminiChatAdapter(provider: string, endpoint: GeminiEndpoint): OperationAdapter {
  return {
    async request(call: ProviderCall) {
      const body = JSON.stringify(toGeminiRequest(call.body ?? {}));
      const { url, headers } = await locate(endpoint, call, call.stream ? 'streamGenerateContent?alt=sse' : 'generateContent');
      return { method: 'POST', url, headers: { ...headers, 'content-type': 'application/json' }, body };
    },
    // An answer that is not an object reads as one with nothing in it, as every provider's answer does.
    response: (body: unknown, call) => toChatCompletion(objectOf(body), call.body?.model),
    stream: geminiStream(provider),
  };
}
