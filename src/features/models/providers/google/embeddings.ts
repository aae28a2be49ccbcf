/**
 * POST /v1/embeddings on the Gemini API: one text -> models/{model}:embedContent, a list ->
 * models/{model}:batchEmbedContents (one request per text, answered in order).
 */
import type { OperationAdapter } from '../provider.js';
import { compileParamTable, type ParamTable } from '../shared/param-table.js';
import { embeddingInputs, embeddingList } from '../shared/embeddings.js';
import { locate, modelName } from '../gemini/gemini-endpoint.js';
import type { GoogleEndpoint } from './endpoint.js';
import { notAnAnswer } from '../shared/answer-shape.js';
import { isJsonObject } from '../../../../contract/json.js';

/** OpenAI embedding fields -> fields of each EmbedContentRequest. */
export const GOOGLE_EMBEDDING_PARAMS: ParamTable = {
  dimensions: 'outputDimensionality',
  task_type: 'taskType',
};

const mapParams = compileParamTable(GOOGLE_EMBEDDING_PARAMS);

export function googleEmbeddingsAdapter(endpoint: GoogleEndpoint): OperationAdapter {
  return {
    async request(call) {
      const texts = embeddingInputs(call.body ?? {}, 'google');
      const single = typeof call.body?.input === 'string';
      const params = mapParams(call.body ?? {});
      const body = single
        ? { content: { parts: [{ text: texts[0] }] }, ...params }
        : { requests: texts.map((text) => ({ model: `models/${modelName(call.body)}`, content: { parts: [{ text }] }, ...params })) };
      const { url, headers } = await locate(endpoint, call, single ? 'embedContent' : 'batchEmbedContents');
      return { method: 'POST', url, headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) };
    },
    response(body: { embedding?: { values?: number[] }; embeddings?: unknown } | null, call) {
      if (!isJsonObject(body?.embedding) && !Array.isArray(body?.embeddings)) throw notAnAnswer('google', 'an embedding answer');
      const vectors: number[][] = body?.embedding
        ? [body.embedding.values ?? []]
        : (Array.isArray(body?.embeddings) ? body.embeddings : []).map((e: { values?: number[] }) => e?.values ?? []);
      return embeddingList(vectors, 0, call);
    },
  };
}
