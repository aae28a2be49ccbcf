import type { IncomingHttpHeaders } from 'node:http';
import type { GatewayError } from '../../../../contract/errors/gateway-error.js';
import { parseErrorBody, upstreamError } from '../shared/upstream-error.js';

/** Errors in OpenAI's shape: {"error": {"message", "type", "code", "param"}}. */
export function mapOpenAIError(provider: string, status: number, body: Buffer, headers: IncomingHttpHeaders): GatewayError {
  const parsed = parseErrorBody(body);
  const err = typeof parsed === 'object' && parsed !== null ? (parsed.error ?? parsed) : undefined;
  const message =
    typeof err === 'object' && err !== null
      ? typeof err.message === 'string'
        ? err.message
        : typeof parsed.message === 'string'
          ? parsed.message
          : undefined
      : typeof parsed === 'string'
        ? parsed.slice(0, 500)
        : undefined;
  const code = typeof err === 'object' && err !== null ? String(err.code ?? err.type ?? '') : undefined;
  const param = typeof err === 'object' && err !== null && typeof err.param === 'string' ? err.param : undefined;
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
