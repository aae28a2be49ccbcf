/**
 * POST /v1/embeddings on Vertex AI: models/{model}:predict with one instance per text;
 * predictions[].embeddings.values in order, token counts from their statistics.
 */
import type { OperationAdapter } from '../provider.js';
import { compileParamTable, type ParamTable } from '../shared/param-table.js';
import { embeddingInputs, embeddingList } from '../shared/embeddings.js';
import { locate } from '../gemini/gemini-endpoint.js';
import type { VertexEndpoint } from './endpoint.js';
import { notAnAnswer } from '../shared/answer-shape.js';

/** OpenAI embedding fields -> the predict request's parameters. */
export const VERTEX_EMBEDDING_PARAMS: ParamTable = {
  dimensions: 'parameters.outputDimensionality',
};

const mapParams = compileParamTable(VERTEX_EMBEDDING_PARAMS);

export function vertexEmbeddingsAdapter(endpoint: VertexEndpoint): OperationAdapter {
  return {
    async request(call) {
      const texts = embeddingInputs(call.body ?? {}, 'vertex-ai');
      const taskType = typeof call.body?.task_type === 'string' ? call.body.task_type : undefined;
      const body = { instances: texts.map((content) => (taskType ? { content, task_type: taskType } : { content })), ...mapParams(call.body ?? {}) };
      const { url, headers } = await locate(endpoint, call, 'predict');
      return { method: 'POST', url, headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) };
    },
    response(body: { predictions?: unknown } | null, call) {
      if (!Array.isArray(body?.predictions)) throw notAnAnswer('vertex-ai', 'a prediction answer');
      const predictions: { embeddings?: { values?: number[]; statistics?: { token_count?: number } } }[] = Array.isArray(body?.predictions) ? body.predictions : [];
      const tokens = predictions.reduce((sum, p) => sum + (Number(p?.embeddings?.statistics?.token_count) || 0), 0);
      return embeddingList(
        predictions.map((p) => p?.embeddings?.values ?? []),
        tokens,
        call,
      );
    },
  };
}
