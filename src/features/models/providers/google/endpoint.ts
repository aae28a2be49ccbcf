/** The Gemini API host: <base>/v1beta/models/{model}:{method}, the key in x-goog-api-key. */
import { trimSlash } from '../openai-compatible/openai-compatible.js';
import type { ProviderCall } from '../provider.js';
import type { GeminiEndpoint } from '../gemini/gemini-endpoint.js';

export const GOOGLE_DEFAULT_BASE_URL = 'https://generativelanguage.googleapis.com';
const API_VERSION = 'v1beta';

export interface GoogleEndpoint extends GeminiEndpoint {
  /** <base>/v1beta for this request (custom_host replaces the base). */
  apiRoot(call: ProviderCall): string;
}

export function googleEndpoint(baseUrl: string, extraHeaders: Record<string, string>): GoogleEndpoint {
  const apiRoot = (call: ProviderCall) => `${call.target.baseUrl ? trimSlash(call.target.baseUrl) : baseUrl}/${API_VERSION}`;
  return {
    apiRoot,
    modelUrl: (call, model, method) => `${apiRoot(call)}/models/${model}:${method}`,
    headers: (call) => (call.apiKey ? { ...extraHeaders, 'x-goog-api-key': call.apiKey } : { ...extraHeaders }),
  };
}
