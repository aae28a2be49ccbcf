/** The Gemini API host: <base>/v1beta/models/{model}:{method}, the key in x-goog-api-key. */
import { trimSlash } from '../openai-compatible/openai-compatible.js';
export const GOOGLE_DEFAULT_BASE_URL = 'https://generativelanguage.googleapis.com';
const API_VERSION = 'v1beta';
export function googleEndpoint(baseUrl, extraHeaders) {
    const apiRoot = (call) => `${call.target.baseUrl ? trimSlash(call.target.baseUrl) : baseUrl}/${API_VERSION}`;
    return {
        apiRoot,
        modelUrl: (call, model, method) => `${apiRoot(call)}/models/${model}:${method}`,
        headers: (call) => (call.apiKey ? { ...extraHeaders, 'x-goog-api-key': call.apiKey } : { ...extraHeaders }),
    };
}
//# sourceMappingURL=endpoint.js.map