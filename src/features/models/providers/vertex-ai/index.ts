/**
 * Google Vertex AI: the Gemini format (../gemini/) on
 * https://{region}-aiplatform.googleapis.com/v1/projects/{project}/locations/{region}/publishers/google/models/{model},
 * authenticated with a service account (JWT grant signed here, token cached) or an access token.
 */
import { trimSlash } from '../openai-compatible/openai-compatible.js';
import { providerSettingsSchema } from '../shared/settings-schema.js';
import type { ProviderDefinition, ProviderInstance, ProviderSettings } from '../provider.js';
import { geminiChatAdapter } from '../gemini/chat-adapter.js';
import { geminiTokenCountAdapter } from '../gemini/count-tokens.js';
import { completionsViaChat } from '../shared/completions-via-chat.js';
import { AccessTokens } from './access-tokens.js';
import { vertexEndpoint } from './endpoint.js';
import { vertexEmbeddingsAdapter } from './embeddings.js';
import { mapVertexError } from './errors.js';
import { GOOGLE_HEADERS } from '../shared/upstream-headers.js';
import { vertexModelsAdapter } from './models.js';

const NAME = 'vertex-ai';

/** providers.vertex-ai: schema/providers/vertex-ai.schema.json. */
const VERTEX_SETTINGS_SCHEMA = providerSettingsSchema('vertex-ai');

const vertexAi: ProviderDefinition = {
  name: NAME,
  displayName: 'Google Vertex AI',
  schema: VERTEX_SETTINGS_SCHEMA,
  fields: [
    {
      name: 'vertex_project_id',
      pattern: /^(?:[a-z0-9](?:[a-z0-9.-]{0,61}[a-z0-9])?:)?[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/,
      what: 'a Google Cloud project id (lower-case letters, digits and hyphens)',
    },
    { name: 'vertex_region', host: true, pattern: /^(?:global|[a-z]+(?:-[a-z]+\d{1,2})?)$/, what: 'a Google Cloud region such as us-central1, or global' },
    { name: 'vertex_service_account_json', secret: true, json: true },
  ],
  create(settings: ProviderSettings): ProviderInstance {
    const configuredBase = settings.baseUrl ? trimSlash(settings.baseUrl) : undefined;
    const tokens = new AccessTokens({ provider: NAME, tokenHosts: settings.tokenHosts as string[] | undefined });
    const endpoint = vertexEndpoint(NAME, configuredBase, settings.headers ?? {}, tokens);
    const chat = geminiChatAdapter(NAME, endpoint);
    return {
      id: NAME,
      baseUrl: configuredBase ?? 'https://{region}-aiplatform.googleapis.com',
      ...(configuredBase ? {} : { hosts: /^(?:[a-z]+(?:-[a-z]+\d{1,2})?-)?aiplatform\.googleapis\.com$/ }),
      settings,
      // The credential is a service account (x-gateway-vertex-service-account-json) or a
      // token in the key headers; the endpoint answers 401 when neither is there.
      requiresKey: false,
      settingFields: ['vertex_project_id', 'vertex_region', 'vertex_service_account_json'],
      operations: {
        'chat.completions': chat,
        completions: completionsViaChat(chat, NAME),
        embeddings: vertexEmbeddingsAdapter(endpoint),
        'models.list': vertexModelsAdapter(endpoint),
      },
      mapError: (status, body, headers) => mapVertexError(NAME, status, body, headers),
      passHeaders: GOOGLE_HEADERS,
      tokenCount: geminiTokenCountAdapter(endpoint, 'vertex'),
    };
  },
};

export default vertexAi;
