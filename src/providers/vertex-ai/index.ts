/**
 * Google Vertex AI: the Gemini format (../gemini/) on
 * https://{region}-aiplatform.googleapis.com/v1/projects/{project}/locations/{region}/publishers/google/models/{model},
 * authenticated with a service account (JWT grant signed here, token cached) or an access token.
 */
import { PROVIDER_SETTINGS_SCHEMA, trimSlash } from '../openai-compatible/openai-compatible.js';
import type { ProviderDefinition, ProviderInstance, ProviderSettings } from '../provider.js';
import { geminiChatAdapter } from '../gemini/chat-adapter.js';
import { completionsViaChat } from '../shared/completions-via-chat.js';
import { AccessTokens } from './access-tokens.js';
import { vertexEndpoint } from './endpoint.js';
import { vertexEmbeddingsAdapter } from './embeddings.js';
import { mapVertexError } from './errors.js';
import { vertexModelsAdapter } from './models.js';

const NAME = 'vertex-ai';

const VERTEX_SETTINGS_SCHEMA = {
  type: 'object',
  properties: {
    ...PROVIDER_SETTINGS_SCHEMA.properties,
    tokenHosts: {
      description: "Hosts (host or host:port) a service account's token_uri may name besides https://*.googleapis.com.",
      type: 'array',
      items: { type: 'string' },
    },
  },
} as const;

const vertexAi: ProviderDefinition = {
  name: NAME,
  displayName: 'Google Vertex AI',
  schema: VERTEX_SETTINGS_SCHEMA,
  create(settings: ProviderSettings): ProviderInstance {
    const configuredBase = settings.baseUrl ? trimSlash(settings.baseUrl) : undefined;
    const tokens = new AccessTokens({ provider: NAME, tokenHosts: settings.tokenHosts as string[] | undefined });
    const endpoint = vertexEndpoint(NAME, configuredBase, settings.headers ?? {}, tokens);
    const chat = geminiChatAdapter(NAME, endpoint);
    return {
      id: NAME,
      baseUrl: configuredBase ?? 'https://{region}-aiplatform.googleapis.com',
      settings,
      // The credential is a service account (x-gateway-vertex-service-account-json) or a
      // token in the key headers; the endpoint answers 401 when neither is there.
      requiresKey: false,
      operations: {
        'chat.completions': chat,
        completions: completionsViaChat(chat, NAME),
        embeddings: vertexEmbeddingsAdapter(endpoint),
        'models.list': vertexModelsAdapter(endpoint),
      },
      mapError: (status, body, headers) => mapVertexError(NAME, status, body, headers),
    };
  },
};

export default vertexAi;
