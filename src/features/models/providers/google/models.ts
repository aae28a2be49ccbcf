/** GET /v1/models on the Gemini API: GET <base>/v1beta/models -> OpenAI's list (ids without "models/"). */
import type { OperationAdapter } from '../provider.js';
import { modelList } from '../gemini/model-list.js';
import type { GoogleEndpoint } from './endpoint.js';

/** The most models the Gemini API returns on one page. */
const PAGE_SIZE = 1000;

export function googleModelsAdapter(endpoint: GoogleEndpoint): OperationAdapter {
  return {
    async request(call) {
      return { method: 'GET', url: `${endpoint.apiRoot(call)}/models?pageSize=${PAGE_SIZE}`, headers: await endpoint.headers(call), body: null };
    },
    response: (body: { models?: unknown; nextPageToken?: unknown } | null) =>
      modelList(body?.models, 'google', typeof body?.nextPageToken === 'string' && body.nextPageToken !== ''),
  };
}
