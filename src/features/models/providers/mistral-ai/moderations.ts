import { isJsonObject, objectOf, objectsOf } from '../../../../contract/json.js';
import type { ProviderCode } from '../openai-compatible/provider-data.js';

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
    moderations: (answer: unknown) => {
      const body = objectOf(answer);
      return {
        id: body.id,
        model: body.model,
        results: objectsOf(body.results).map((r) => {
          const categories = isJsonObject(r.categories) ? r.categories : {};
          return { flagged: Object.values(categories).some((v) => v === true), categories, category_scores: r.category_scores ?? {} };
        }),
      };
    },
  },
};
