import type { IncomingHttpHeaders } from 'node:http';
import type { GatewayError } from '../../../../contract/errors/gateway-error.js';
import { parseErrorBody, upstreamError } from '../shared/upstream-error.js';

/** The fields of an OpenAI error read here (any other JSON value reads as no field). */
interface OpenAIErrorFields {
  error?: unknown;
  message?: unknown;
  code?: unknown;
  type?: unknown;
  param?: unknown;
}

/** Errors in OpenAI's shape: {"error": {"message", "type", "code", "param"}}. */
export function mapOpenAIError(provider: string, status: number, body: Buffer, headers: IncomingHttpHeaders): GatewayError {
  const parsed = parseErrorBody(body);
  const fields = parsed as OpenAIErrorFields;
  const found: unknown = typeof parsed === 'object' && parsed !== null ? (fields.error ?? parsed) : undefined;
  const err = typeof found === 'object' && found !== null ? (found as OpenAIErrorFields) : undefined;
  const message = err
    ? typeof err.message === 'string'
      ? err.message
      : typeof fields.message === 'string'
        ? fields.message
        : undefined
    : typeof parsed === 'string'
      ? parsed.slice(0, 500)
      : undefined;
  const named = err?.code ?? err?.type;
  // A code is a string, number or boolean; anything else (an object, which may not even turn into a string) names none.
  const code = err ? (typeof named === 'string' || typeof named === 'number' || typeof named === 'boolean' ? String(named) : '') : undefined;
  const param = err && typeof err.param === 'string' ? err.param : undefined;
  return upstreamError(
    provider,
    status,
    {
      message,
      code,
      param,
      gatewayCode: code === 'model_not_found' ? 'model_not_found' : code === 'content_policy_violation' || code === 'content_filter' ? 'content_policy_violation' : undefined,
    },
    headers,
  );
}
