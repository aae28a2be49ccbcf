/** POST /v1/chat/completions on a Gemini-format host: generateContent / streamGenerateContent. */
import { isJsonObject, objectOf } from '../../../../contract/json.js';
import { notAnAnswer } from '../shared/answer-shape.js';
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
    // Every GenerateContent answer has its candidates, or the prompt feedback of a refused prompt; one with neither is the upstream's bad answer.
    response: (raw: unknown, call) => {
      const body = objectOf(raw);
      if (!Array.isArray(body.candidates) && !isJsonObject(body.promptFeedback)) throw notAnAnswer(provider, 'a GenerateContent answer');
      return toChatCompletion(body, call.body?.model);
    },
    stream: geminiStream(provider),
  };
}
