import type { Readable } from 'node:stream';
import { trimSlash } from './upstream-url.js';
import type { OperationAdapter, ProviderCall, ProviderInstance } from '../provider.js';

/**
 * An adapter for a provider's resource API (files, fine-tuning jobs, images) whose paths or
 * shapes differ from OpenAI's: the path under the base URL, a JSON or multipart body, and the
 * mapping of the answer into OpenAI's shape. The key goes as Authorization: Bearer.
 */
export interface ResourceSpec {
  method: 'GET' | 'POST' | 'DELETE';
  path(call: ProviderCall, provider: ProviderInstance): string;
  /** The base URL the path is appended to (default: the provider's base URL). */
  base?(base: string, call: ProviderCall): string;
  /** Query string to send (default: none). */
  query?(call: ProviderCall): URLSearchParams | undefined;
  json?(call: ProviderCall, provider: ProviderInstance): unknown;
  multipart?(call: ProviderCall): { body: Readable; contentType: string; contentLength?: number };
  /** Maps the answer (parsed JSON, unknown until narrowed) into OpenAI's shape. */
  response?(body: unknown, call: ProviderCall): unknown;
  binary?: boolean;
}

export function resourceAdapter(spec: ResourceSpec): OperationAdapter {
  const adapter: OperationAdapter = {
    request(call: ProviderCall, provider: ProviderInstance) {
      let base = trimSlash(call.target.baseUrl ?? provider.baseUrl);
      if (spec.base) base = trimSlash(spec.base(base, call));
      const headers: Record<string, string> = { ...(provider.settings.headers ?? {}) };
      if (call.apiKey) headers.authorization = `Bearer ${call.apiKey}`;
      let body: string | Readable | null = null;
      if (spec.json) {
        headers['content-type'] = 'application/json';
        body = JSON.stringify(spec.json(call, provider));
      } else if (spec.multipart) {
        const form = spec.multipart(call);
        headers['content-type'] = form.contentType;
        if (form.contentLength !== undefined) headers['content-length'] = String(form.contentLength);
        body = form.body;
      }
      const qs = spec.query?.(call)?.toString();
      return { method: spec.method, url: `${base}${spec.path(call, provider)}${qs ? `?${qs}` : ''}`, headers, body };
    },
  };
  if (spec.response) adapter.response = spec.response;
  if (spec.binary) adapter.binary = true;
  return adapter;
}

export function pathId(call: ProviderCall, name: 'file_id' | 'job_id' | 'batch_id'): string {
  return encodeURIComponent(call.params[name] ?? '');
}
