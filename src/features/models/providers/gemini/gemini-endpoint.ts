/**
 * What differs between the two hosts of the Gemini format (the Gemini API and Vertex AI):
 * where a model's methods live and how a request is authenticated. Everything else (bodies,
 * answers, streams, errors) is shared in this folder.
 */
import { badRequest } from '../../../../contract/errors/gateway-error.js';
import type { ProviderCall } from '../provider.js';

export interface GeminiEndpoint {
  /** URL of a model method: `method` is "generateContent", "streamGenerateContent?alt=sse", "embedContent", ... */
  modelUrl(call: ProviderCall, model: string, method: string): string | Promise<string>;
  /** Headers of every request (credentials, configured extra headers). */
  headers(call: ProviderCall): Record<string, string> | Promise<Record<string, string>>;
}

/** The model named by the request, without a resource prefix ("models/", "publishers/google/models/"). */
export function modelName(body: unknown): string {
  const model = (body as { model?: unknown } | undefined)?.model;
  if (typeof model !== 'string' || model.trim() === '') throw badRequest('model is required.', 'model');
  return model.trim().replace(/^(publishers\/[^/]+\/)?models\//, '');
}

/** The request's URL and headers for one model method. */
export async function locate(endpoint: GeminiEndpoint, call: ProviderCall, method: string): Promise<{ url: string; headers: Record<string, string> }> {
  const model = encodeURIComponent(modelName(call.body));
  const url = await endpoint.modelUrl(call, model, method);
  return { url, headers: await endpoint.headers(call) };
}
