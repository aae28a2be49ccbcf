/**
 * GET /v1/models on Anthropic: GET <baseUrl>/v1/models (x-api-key, anthropic-version; one page
 * of the most it gives, `limit` 1000) -> OpenAI's list. Anthropic lists
 * `{data: [{type: "model", id, display_name, created_at}], has_more, first_id, last_id}`; the
 * gateway pages the list itself by `limit` and `after` (resource-shapes), newest first.
 */
import type { OperationAdapter } from '../provider.js';
import { baseUrlOf } from '../shared/upstream-url.js';
import { notAnAnswer } from '../shared/answer-shape.js';
import { isJsonObject, objectsOf } from '../../../../contract/json.js';

/** The most models Anthropic lists on one page. */
const PAGE_SIZE = 1000;

/** An RFC 3339 time -> Unix seconds (0 when it is not one). */
function unixSeconds(value: unknown): number {
  const ms = typeof value === 'string' ? Date.parse(value) : NaN;
  return Number.isFinite(ms) ? Math.floor(ms / 1000) : 0;
}

/** Anthropic's model list -> OpenAI's (`{object: "list", data: [{id, object: "model", created, owned_by}], has_more}`). */
export function anthropicModelList(raw: unknown): Record<string, unknown> {
  if (!isJsonObject(raw) || !Array.isArray(raw.data)) throw notAnAnswer('anthropic', 'a model list');
  const data = objectsOf(raw.data)
    .filter((m) => typeof m.id === 'string')
    .map((m) => ({ id: m.id as string, object: 'model', created: unixSeconds(m.created_at), owned_by: 'anthropic' }));
  return { object: 'list', data, has_more: raw.has_more === true };
}

export function anthropicModelsAdapter(version: string, extraHeaders: Record<string, string>): OperationAdapter {
  return {
    request(call, provider) {
      return {
        method: 'GET',
        url: `${baseUrlOf(call, provider)}/v1/models?limit=${PAGE_SIZE}`,
        headers: { 'anthropic-version': version, ...extraHeaders, 'x-api-key': call.apiKey ?? '' },
        body: null,
      };
    },
    response: anthropicModelList,
  };
}
