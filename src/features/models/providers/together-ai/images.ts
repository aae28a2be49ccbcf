import type { Operation } from '../../../../contract/operations.js';
import { objectOf, objectsOf, type JsonObject } from '../../../../contract/json.js';
import type { OperationAdapter, ProviderCall } from '../provider.js';
import { resourceAdapter } from '../shared/resource-adapter.js';

/** OpenAI's image request -> Together's: size becomes width and height, b64_json is "base64". */
function imageBody(call: ProviderCall): Record<string, unknown> {
  const { size, response_format, quality: _q, style: _s, user: _u, ...rest } = call.body as JsonObject;
  const out: Record<string, unknown> = { ...rest };
  const m = typeof size === 'string' ? /^(\d+)x(\d+)$/.exec(size) : null;
  if (m) {
    out.width = Number(m[1]);
    out.height = Number(m[2]);
  }
  if (response_format) out.response_format = response_format === 'b64_json' ? 'base64' : response_format;
  return out;
}

/** Together's image answer -> the spec's image result `{created, data: [{url | b64_json}]}`. */
function imageResult(answer: unknown): Record<string, unknown> {
  const body = objectOf(answer);
  const data = objectsOf(body.data).map((d) => (d.b64_json ? { b64_json: d.b64_json } : { url: d.url }));
  return { created: typeof body.created === 'number' ? body.created : Math.floor(Date.now() / 1000), data };
}

export const togetherImages: Partial<Record<Operation, OperationAdapter>> = {
  'images.generations': resourceAdapter({ method: 'POST', path: () => '/images/generations', json: imageBody, response: imageResult }),
};
