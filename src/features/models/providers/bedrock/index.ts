import type { Operation } from '../../../../contract/operations.js';
import { providerSettingsSchema } from '../shared/settings-schema.js';
import type { OperationAdapter, ProviderCall, ProviderDefinition, ProviderInstance, ProviderSettings } from '../provider.js';
import { trimSlash } from '../openai-compatible/openai-compatible.js';
import { completionsViaChat } from '../shared/completions-via-chat.js';
import { awsCredentials, DEFAULT_REGION } from './credentials.js';
import { signedRequest } from './signing.js';
import { BEDROCK_HOSTS, modelPath, regionalBaseUrl } from './paths.js';
import { countTokensBody, toConverseRequest } from './converse-request.js';
import { fromConverse } from './converse-response.js';
import { CONVERSE_STREAM } from './converse-stream.js';
import { bedrockEmbeddings } from './embeddings.js';
import { mapBedrockError } from './errors.js';
import { BEDROCK_HEADERS } from '../shared/upstream-headers.js';

/**
 * Amazon Bedrock runtime: chat through Converse / ConverseStream, completions through chat,
 * embeddings through InvokeModel. Requests are signed with SigV4 from the aws_* fields; the
 * provider key is not used. Base URL: https://bedrock-runtime.{region}.amazonaws.com unless
 * providers.bedrock.baseUrl (or the target's custom host) replaces it.
 */
const bedrock: ProviderDefinition = {
  name: 'bedrock',
  displayName: 'Amazon Bedrock',
  schema: providerSettingsSchema('bedrock'),
  fields: [
    { name: 'aws_access_key_id', secret: true, header: true },
    { name: 'aws_secret_access_key', secret: true, header: true },
    { name: 'aws_session_token', secret: true, header: true },
    { name: 'aws_region', host: true, pattern: /^[a-z]{2}(?:-[a-z]+){1,2}-\d{1,2}$/, what: 'an AWS region such as us-east-1' },
  ],
  create(settings: ProviderSettings): ProviderInstance {
    const extraHeaders = settings.headers ?? {};
    const fixedBase = typeof settings.baseUrl === 'string' ? trimSlash(settings.baseUrl) : undefined;
    const baseFor = (call: ProviderCall, region: string) => (call.target.baseUrl ? trimSlash(call.target.baseUrl) : (fixedBase ?? regionalBaseUrl(region)));
    const chat: OperationAdapter = {
      request(call) {
        const credentials = awsCredentials(call, settings);
        const url = `${baseFor(call, credentials.region)}${modelPath(call.body?.model, call.stream ? 'converse-stream' : 'converse')}`;
        const headers: Record<string, string> = {
          ...extraHeaders,
          'content-type': 'application/json',
          accept: call.stream ? 'application/vnd.amazon.eventstream' : 'application/json',
        };
        return signedRequest('POST', url, headers, JSON.stringify(toConverseRequest(call.body ?? {})), credentials);
      },
      response: fromConverse,
      stream: CONVERSE_STREAM,
    };
    const operations: Partial<Record<Operation, OperationAdapter>> = {
      'chat.completions': chat,
      completions: completionsViaChat(chat, 'bedrock'),
      embeddings: bedrockEmbeddings(settings, extraHeaders, baseFor),
    };
    return {
      id: 'bedrock',
      baseUrl: fixedBase ?? regionalBaseUrl(typeof settings.region === 'string' ? settings.region : DEFAULT_REGION),
      ...(fixedBase ? {} : { hosts: BEDROCK_HOSTS }),
      settings,
      requiresKey: false,
      settingFields: ['aws_access_key_id', 'aws_secret_access_key', 'aws_session_token', 'aws_region'],
      operations,
      mapError: mapBedrockError,
      passHeaders: BEDROCK_HEADERS,
      tokenCount: {
        request(call) {
          const credentials = awsCredentials(call, settings);
          const url = `${baseFor(call, credentials.region)}${modelPath(call.body?.model, 'count-tokens')}`;
          const headers = { ...extraHeaders, 'content-type': 'application/json', accept: 'application/json' };
          return signedRequest('POST', url, headers, JSON.stringify(countTokensBody(call.body ?? {})), credentials);
        },
        response: (body: { inputTokens?: unknown } | null) => ({ input_tokens: Number(body?.inputTokens ?? 0) }),
      },
    };
  },
};

export default bedrock;
