import type { OperationAdapter } from '../provider.js';
import { embeddingInputs, embeddingList } from '../shared/embeddings.js';
import { compileParamTable, type ParamTable } from '../shared/param-table.js';
import { baseUrlOf } from '../shared/upstream-url.js';
import { notAnAnswer } from '../shared/answer-shape.js';
import { isJsonObject } from '../../../../contract/json.js';

/**
 * OpenAI embeddings -> Cohere v2 embed (POST /v2/embed): texts, input_type (from the request,
 * default search_document), float vectors; dimensions -> output_dimension.
 */
/** Cohere's embed answer (v2: vectors by type; v1: a list), with its billed tokens. */
interface CohereEmbedAnswer {
  embeddings?: number[][] | { float?: number[][] };
  meta?: { billed_units?: { input_tokens?: unknown } };
}

export const COHERE_EMBED_TABLE: ParamTable = {
  model: 'model',
  input: { to: 'texts', transform: (_input, request) => embeddingInputs(request, 'cohere') },
  input_type: { default: 'search_document' },
  embedding_types: { compute: () => ['float'] },
  dimensions: 'output_dimension',
  encoding_format: false,
  user: false,
};

const toEmbedRequest = compileParamTable(COHERE_EMBED_TABLE, { passUnknown: true });

export function cohereEmbeddings(authHeaders: (apiKey: string | undefined) => Record<string, string>): OperationAdapter {
  return {
    request(call, provider) {
      return {
        method: 'POST',
        url: `${baseUrlOf(call, provider)}/v2/embed`,
        headers: { ...authHeaders(call.apiKey), 'content-type': 'application/json' },
        body: JSON.stringify(toEmbedRequest(call.body ?? {})),
      };
    },
    response(body: CohereEmbedAnswer | null, call) {
      if (!Array.isArray(body?.embeddings) && !isJsonObject(body?.embeddings)) throw notAnAnswer('cohere', 'an embedding answer');
      const vectors = Array.isArray(body?.embeddings) ? body.embeddings : (body?.embeddings?.float ?? []);
      const tokens = Number(body?.meta?.billed_units?.input_tokens ?? 0);
      return embeddingList(vectors, tokens, call);
    },
  };
}
