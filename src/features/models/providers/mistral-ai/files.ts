import type { Operation } from '../../../../contract/operations.js';
import { openAIFile } from '../../../../contract/openai/files.js';
import { windowList } from '../../../../contract/openai/lists.js';
import type { OperationAdapter, ProviderCall } from '../provider.js';
import { resourceAdapter } from '../shared/resource-adapter.js';
import { objectOf, objectsOf } from '../../../../contract/json.js';

/**
 * Mistral pages its lists by page number; the gateway asks for one page large enough for
 * `limit` (100 when `after` is given) and windows it the contract's way, newest first.
 */
export function mistralPageQuery(call: ProviderCall): URLSearchParams {
  const limit = Number(call.query.get('limit') ?? 20);
  return new URLSearchParams({ page: '0', page_size: String(call.query.get('after') ? 100 : Math.min(100, limit + 1)) });
}

/** Mistral's files API is OpenAI's except the list (uploads, get, delete, content pass through). */
export const mistralFiles: Partial<Record<Operation, OperationAdapter>> = {
  'files.list': resourceAdapter({
    method: 'GET',
    path: () => '/files',
    query: mistralPageQuery,
    response: (body, call) => {
      const files = objectsOf(objectOf(body).data).map((f) => openAIFile(f));
      files.sort((a, b) => b.created_at - a.created_at);
      return windowList(files, call.query);
    },
  }),
};
