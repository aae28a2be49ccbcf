/** GET /v1/models on Vertex AI: Google's publisher models (v1beta1) -> OpenAI's list. */
import type { OperationAdapter } from '../provider.js';
import { modelList } from '../gemini/model-list.js';
import type { VertexEndpoint } from './endpoint.js';

const PAGE_SIZE = 1000;

export function vertexModelsAdapter(endpoint: VertexEndpoint): OperationAdapter {
  return {
    async request(call) {
      return {
        method: 'GET',
        url: `${endpoint.host(call)}/v1beta1/publishers/google/models?pageSize=${PAGE_SIZE}`,
        headers: await endpoint.headers(call),
        body: null,
      };
    },
    response: (body: { publisherModels?: unknown; nextPageToken?: unknown } | null) =>
      modelList(body?.publisherModels, 'google', typeof body?.nextPageToken === 'string' && body.nextPageToken !== ''),
  };
}
