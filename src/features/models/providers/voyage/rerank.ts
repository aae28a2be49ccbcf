import type { ProviderCode } from '../openai-compatible/provider-data.js';
import { rerankAnswer, rerankTexts } from '../shared/rerank.js';
import { objectOf, objectsOf } from '../../../../contract/json.js';

/**
 * Voyage's rerank API (POST /v1/rerank) takes documents as strings and top_k for top_n (renamed
 * by its data file), and answers `{object: "list", data: [{index, relevance_score, document}]}`:
 * translated to the gateway's `{results: [...]}`.
 */
export const voyageCode: ProviderCode = {
  bodies: {
    rerank: (body) => ({ ...body, documents: rerankTexts(body) }),
  },
  answers: {
    rerank: (answer, call) => {
      const body = objectOf(answer);
      return rerankAnswer(objectsOf(body.data), call.body, {
        object: 'list',
        model: body.model,
        ...(body.usage ? { usage: body.usage } : {}),
      });
    },
  },
};
