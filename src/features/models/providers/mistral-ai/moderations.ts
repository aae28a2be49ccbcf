import type { ProviderCode } from '../openai-compatible/provider-data.js';

type Json = Record<string, any>;

/**
 * Mistral's moderation API (POST /v1/moderations, https://docs.mistral.ai/capabilities/guardrailing)
 * takes OpenAI's request (a model is required: mistral-moderation-latest unless the request
 * names one) and answers results with categories and scores but no `flagged`: a result is
 * flagged when any of its categories is. Mistral's category names are kept as they are.
 */
export const mistralModerations: Pick<ProviderCode, 'bodies' | 'answers'> = {
  bodies: {
    moderations: (body) => (typeof body.model === 'string' && body.model ? body : { ...body, model: 'mistral-moderation-latest' }),
  },
  answers: {
    moderations: (body: Json) => ({
      id: body?.id,
      model: body?.model,
      results: (Array.isArray(body?.results) ? body.results : []).map((r: Json) => {
        const categories: Record<string, boolean> = r?.categories && typeof r.categories === 'object' ? r.categories : {};
        return { flagged: Object.values(categories).some((v) => v === true), categories, category_scores: r?.category_scores ?? {} };
      }),
    }),
  },
};
