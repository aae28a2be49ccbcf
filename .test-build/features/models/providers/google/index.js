/**
 * Google Gemini API (https://generativelanguage.googleapis.com): chat through generateContent /
 * streamGenerateContent, embeddings through embedContent / batchEmbedContents, the model list.
 * The key travels in x-goog-api-key. The Gemini format itself lives in ../gemini/.
 */
import { PROVIDER_SETTINGS_SCHEMA, trimSlash } from '../openai-compatible/openai-compatible.js';
import { geminiChatAdapter } from '../gemini/chat-adapter.js';
import { geminiTokenCountAdapter } from '../gemini/count-tokens.js';
import { completionsViaChat } from '../shared/completions-via-chat.js';
import { mapGoogleError } from '../gemini/errors.js';
import { GOOGLE_HEADERS } from '../shared/upstream-headers.js';
import { GOOGLE_DEFAULT_BASE_URL, googleEndpoint } from './endpoint.js';
import { googleEmbeddingsAdapter } from './embeddings.js';
import { googleModelsAdapter } from './models.js';
const NAME = 'google';
const google = {
    name: NAME,
    displayName: 'Google Gemini API',
    schema: PROVIDER_SETTINGS_SCHEMA,
    create(settings) {
        const baseUrl = trimSlash(settings.baseUrl ?? GOOGLE_DEFAULT_BASE_URL);
        const endpoint = googleEndpoint(baseUrl, settings.headers ?? {});
        const chat = geminiChatAdapter(NAME, endpoint);
        return {
            id: NAME,
            baseUrl,
            settings,
            requiresKey: true,
            operations: {
                'chat.completions': chat,
                completions: completionsViaChat(chat, NAME),
                embeddings: googleEmbeddingsAdapter(endpoint),
                'models.list': googleModelsAdapter(endpoint),
            },
            mapError: (status, body, headers) => mapGoogleError(NAME, status, body, headers),
            passHeaders: GOOGLE_HEADERS,
            tokenCount: geminiTokenCountAdapter(endpoint, 'gemini-api'),
        };
    },
};
export default google;
//# sourceMappingURL=index.js.map