import type { OperationAdapter } from '../provider.js';
import { rerankAnswer, rerankTexts } from '../shared/rerank.js';
import { baseUrlOf } from '../shared/upstream-url.js';

/**
 * POST /v1/rerank -> Cohere v2 rerank (POST /v2/rerank): documents as texts, top_n and
 * max_tokens_per_doc as they are. v2 no longer returns the documents: when the request asks
 * for return_documents, each result gets its document's text from the request.
 */
export function cohereRerank(authHeaders: (apiKey: string | undefined) => Record<string, string>): OperationAdapter {
  return {
    request(call, provider) {
      const body = call.body ?? {};
      const out: Record<string, unknown> = { model: body.model, query: body.query, documents: rerankTexts(body) };
      if (body.top_n !== undefined) out.top_n = body.top_n;
      if (body.max_tokens_per_doc !== undefined) out.max_tokens_per_doc = body.max_tokens_per_doc;
      return {
        method: 'POST',
        url: `${baseUrlOf(call, provider)}/v2/rerank`,
        headers: { ...authHeaders(call.apiKey), 'content-type': 'application/json' },
        body: JSON.stringify(out),
      };
    },
    response(body: { results?: unknown; id?: unknown; meta?: unknown } | null, call) {
      return rerankAnswer(Array.isArray(body?.results) ? body.results : [], call.body, { id: body?.id, ...(body?.meta ? { meta: body.meta } : {}) });
    },
  };
}
