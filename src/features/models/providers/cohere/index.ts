import type { Operation } from '../../../../contract/operations.js';
import type { OperationAdapter, ProviderDefinition, ProviderInstance, ProviderSettings } from '../provider.js';
import { PROVIDER_SETTINGS_SCHEMA, trimSlash } from '../openai-compatible/openai-compatible.js';
import { baseUrlOf } from '../shared/upstream-url.js';
import { completionsViaChat } from '../shared/completions-via-chat.js';
import { toCohereRequest } from './request.js';
import { fromCohereChat } from './response.js';
import { COHERE_STREAM } from './stream.js';
import { cohereEmbeddings } from './embeddings.js';
import { cohereRerank } from './rerank.js';
import { mapCohereError } from './errors.js';
import { COHERE_HEADERS } from '../shared/upstream-headers.js';

/**
 * Cohere API v2 (default https://api.cohere.com, key as Authorization: Bearer): chat
 * (POST /v2/chat) translated both ways, completions through chat, embeddings (POST /v2/embed),
 * rerank (POST /v2/rerank).
 */
const cohere: ProviderDefinition = {
  name: 'cohere',
  displayName: 'Cohere',
  schema: PROVIDER_SETTINGS_SCHEMA,
  create(settings: ProviderSettings): ProviderInstance {
    const extraHeaders = settings.headers ?? {};
    const authHeaders = (apiKey: string | undefined): Record<string, string> => ({ ...extraHeaders, authorization: `Bearer ${apiKey ?? ''}` });
    const chat: OperationAdapter = {
      request(call, provider) {
        const body = toCohereRequest(call.body ?? {});
        if (call.stream) body.stream = true;
        return {
          method: 'POST',
          url: `${baseUrlOf(call, provider)}/v2/chat`,
          headers: { ...authHeaders(call.apiKey), 'content-type': 'application/json', accept: call.stream ? 'text/event-stream' : 'application/json' },
          body: JSON.stringify(body),
        };
      },
      response: fromCohereChat,
      stream: COHERE_STREAM,
    };
    const operations: Partial<Record<Operation, OperationAdapter>> = {
      'chat.completions': chat,
      completions: completionsViaChat(chat, 'cohere'),
      embeddings: cohereEmbeddings(authHeaders),
      rerank: cohereRerank(authHeaders),
    };
    return {
      id: 'cohere',
      baseUrl: trimSlash(settings.baseUrl ?? 'https://api.cohere.com'),
      settings,
      requiresKey: true,
      operations,
      mapError: mapCohereError,
      passHeaders: COHERE_HEADERS,
    };
  },
};

export default cohere;
