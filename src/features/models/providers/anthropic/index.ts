import type { Operation } from '../../../../contract/operations.js';
import type { OperationAdapter, ProviderDefinition, ProviderInstance, ProviderSettings } from '../provider.js';
import { PROVIDER_SETTINGS_SCHEMA, trimSlash } from '../openai-compatible/openai-compatible.js';
import { baseUrlOf } from '../shared/upstream-url.js';
import { completionsViaChat } from '../shared/completions-via-chat.js';
import { toAnthropicRequest } from './request.js';
import { fromAnthropicMessage } from './response.js';
import { ANTHROPIC_STREAM } from './stream.js';
import { mapAnthropicError } from './errors.js';
import { nativeMessagesAdapter } from './native.js';
import { anthropicModelsAdapter } from './models.js';
import { ANTHROPIC_HEADERS } from '../shared/upstream-headers.js';

export const ANTHROPIC_VERSION = '2023-06-01';

/**
 * Anthropic Messages API (POST <baseUrl>/v1/messages, key in x-api-key). Chat is translated
 * both ways; legacy completions are served through chat; /v1/messages and its count_tokens
 * are forwarded as they are; the model list is translated into OpenAI's.
 */
const anthropic: ProviderDefinition = {
  name: 'anthropic',
  displayName: 'Anthropic',
  schema: PROVIDER_SETTINGS_SCHEMA,
  create(settings: ProviderSettings): ProviderInstance {
    const extraHeaders = settings.headers ?? {};
    const chat: OperationAdapter = {
      request(call, provider) {
        const body = toAnthropicRequest(call.body ?? {});
        if (call.stream) body.stream = true;
        return {
          method: 'POST',
          url: `${baseUrlOf(call, provider)}/v1/messages`,
          headers: {
            'anthropic-version': ANTHROPIC_VERSION,
            ...extraHeaders,
            'x-api-key': call.apiKey ?? '',
            'content-type': 'application/json',
          },
          body: JSON.stringify(body),
        };
      },
      response: fromAnthropicMessage,
      stream: ANTHROPIC_STREAM,
    };
    const operations: Partial<Record<Operation, OperationAdapter>> = {
      'chat.completions': chat,
      completions: completionsViaChat(chat, 'anthropic'),
      'messages.create': nativeMessagesAdapter('/v1/messages', ANTHROPIC_VERSION, extraHeaders),
      'messages.count_tokens': nativeMessagesAdapter('/v1/messages/count_tokens', ANTHROPIC_VERSION, extraHeaders),
      'models.list': anthropicModelsAdapter(ANTHROPIC_VERSION, extraHeaders),
    };
    return {
      id: 'anthropic',
      baseUrl: trimSlash(settings.baseUrl ?? 'https://api.anthropic.com'),
      settings,
      requiresKey: true,
      operations,
      mapError: mapAnthropicError,
      passHeaders: ANTHROPIC_HEADERS,
    };
  },
};

export default anthropic;
