import { badRequest } from '../../../../contract/errors/gateway-error.js';
import type { OperationAdapter, ProviderCall, ProviderSettings } from '../provider.js';
import { embeddingInputs, embeddingList } from '../shared/embeddings.js';
import { awsCredentials } from './credentials.js';
import { signedRequest } from './signing.js';
import { modelPath } from './paths.js';
import { arrayOf, isJsonObject, objectOf, type JsonObject } from '../../../../contract/json.js';
import { notAnAnswer } from '../shared/answer-shape.js';

/**
 * Embeddings through InvokeModel (POST /model/{modelId}/invoke):
 * - Amazon Titan (amazon.titan-embed-*): one call per input, {"inputText"}; text-v2 models
 *   also take `dimensions`. Answers: {"embedding", "inputTextTokenCount"}.
 * - Cohere (cohere.embed-*): one call, {"texts", "input_type"} (input_type from the request,
 *   default search_document). Answers: {"embeddings": [[...]]} (no token count).
 */
const TITAN = /titan-embed/i;
const TITAN_V2 = /titan-embed-text-v2/i;
const COHERE = /cohere\.embed/i;

/** A Cohere model's answer (Titan's come as the list of each call's answer). */
interface CohereEmbedAnswer {
  embeddings?: number[][] | { float?: number[][] };
}

function family(model: unknown): 'titan' | 'cohere' {
  const id = String(model ?? '');
  if (TITAN.test(id)) return 'titan';
  if (COHERE.test(id)) return 'cohere';
  throw badRequest(`bedrock embeddings serve Amazon Titan (amazon.titan-embed-*) and Cohere (cohere.embed-*) models, not "${id}".`, 'model');
}

function invokeBody(body: JsonObject): Record<string, unknown> {
  if (family(body.model) === 'titan') {
    const out: Record<string, unknown> = { inputText: body.input };
    if (TITAN_V2.test(String(body.model)) && typeof body.dimensions === 'number') out.dimensions = body.dimensions;
    return out;
  }
  const out: Record<string, unknown> = { texts: embeddingInputs(body, 'bedrock'), input_type: typeof body.input_type === 'string' ? body.input_type : 'search_document' };
  if (typeof body.truncate === 'string') out.truncate = body.truncate;
  return out;
}

export function bedrockEmbeddings(settings: ProviderSettings, extraHeaders: Record<string, string>, baseFor: (call: ProviderCall, region: string) => string): OperationAdapter {
  return {
    fanOut(body: JsonObject) {
      if (family(body?.model) !== 'titan') return undefined;
      return embeddingInputs(body, 'bedrock').map((input) => ({ ...body, input }));
    },
    request(call) {
      const credentials = awsCredentials(call, settings);
      const url = `${baseFor(call, credentials.region)}${modelPath(call.body?.model, 'invoke')}`;
      const headers = { ...extraHeaders, 'content-type': 'application/json', accept: 'application/json' };
      return signedRequest('POST', url, headers, JSON.stringify(invokeBody(call.body ?? {})), credentials);
    },
    response(answer: CohereEmbedAnswer | unknown[] | null, call) {
      if (Array.isArray(answer)) {
        const tokens = answer.reduce((sum: number, a: unknown) => sum + Number(objectOf(a).inputTextTokenCount ?? 0), 0);
        return embeddingList(
          answer.map((a: unknown) => arrayOf(objectOf(a).embedding)),
          tokens,
          call,
        );
      }
      if (!Array.isArray(answer?.embeddings) && !isJsonObject(answer?.embeddings)) throw notAnAnswer('bedrock', 'an embedding answer');
      const vectors = Array.isArray(answer.embeddings) ? answer.embeddings : (answer.embeddings.float ?? []);
      return embeddingList(vectors, 0, call);
    },
  };
}
