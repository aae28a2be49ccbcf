/**
 * Input tokens of an OpenAI chat request on a Gemini-format host (models/{model}:countTokens):
 * the Gemini API takes the whole GenerateContentRequest, Vertex AI its contents, system
 * instruction and tools. Answers `{ input_tokens }`.
 */
import type { OperationAdapter } from '../provider.js';
import { toGeminiRequest } from './chat-request.js';
import { locate, modelName, type GeminiEndpoint } from './gemini-endpoint.js';

export function geminiTokenCountAdapter(endpoint: GeminiEndpoint, shape: 'gemini-api' | 'vertex'): OperationAdapter {
  return {
    async request(call) {
      const { stream: _stream, stream_options: _options, ...chat } = call.body ?? {};
      const request = toGeminiRequest(chat);
      const body =
        shape === 'gemini-api'
          ? { generateContentRequest: { model: `models/${modelName(call.body)}`, ...request } }
          : {
              contents: request.contents,
              ...(request.systemInstruction ? { systemInstruction: request.systemInstruction } : {}),
              ...(request.tools ? { tools: request.tools } : {}),
            };
      const { url, headers } = await locate(endpoint, { ...call, stream: false }, 'countTokens');
      return { method: 'POST', url, headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) };
    },
    response: (body: { totalTokens?: unknown } | null) => ({ input_tokens: Number(body?.totalTokens ?? 0) }),
  };
}
