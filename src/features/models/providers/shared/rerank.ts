/**
 * The gateway's rerank answer (POST /v1/rerank, Cohere's and Jina's shape): results ordered by
 * relevance, best first, each with the index of its document in the request and, when the
 * request asked for return_documents, the document's text.
 */
type Json = Record<string, unknown>;

export interface RerankResult {
  index: number;
  relevance_score: number;
  document?: { text: string };
}

/** The request's documents as texts (strings, or objects with a text field). */
export function rerankTexts(body: Json | undefined): string[] {
  const docs = Array.isArray(body?.documents) ? body.documents : [];
  return docs.map((d: unknown) => {
    if (typeof d === 'string') return d;
    const text = (d as Json | null)?.text;
    return typeof text === 'string' ? text : '';
  });
}

/** One answer in the gateway's shape from a provider's results (any order), the documents filled in when asked. */
export function rerankAnswer(results: Array<{ index?: unknown; relevance_score?: unknown; document?: unknown }>, request: Json | undefined, extra: Json = {}): Json {
  const texts = rerankTexts(request);
  const out: RerankResult[] = results
    .filter((r) => r !== null && typeof r === 'object' && Number.isInteger(r.index) && typeof r.relevance_score === 'number')
    .map((r) => {
      const result: RerankResult = { index: r.index as number, relevance_score: r.relevance_score as number };
      if (request?.return_documents === true) {
        const doc = r.document as Json | string | undefined;
        result.document = { text: typeof doc === 'string' ? doc : typeof doc?.text === 'string' ? doc.text : (texts[r.index as number] ?? '') };
      }
      return result;
    })
    .sort((a, b) => b.relevance_score - a.relevance_score);
  const topN = typeof request?.top_n === 'number' ? request.top_n : undefined;
  return { ...extra, model: extra.model ?? request?.model, results: topN ? out.slice(0, topN) : out };
}
