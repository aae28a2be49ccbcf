import type { IncomingHttpHeaders } from 'node:http';
import type { GatewayError } from '../../../../contract/errors/gateway-error.js';
import type { ErrorCode } from '../../../../contract/errors/catalogue.js';
import { parseErrorBody, upstreamError } from '../shared/upstream-error.js';

/**
 * Anthropic's errors: {"type":"error","error":{"type":"...","message":"..."}}. The HTTP status
 * decides first (the shared rules: 401/403 -> invalid key, 429 -> rate limit with Retry-After,
 * 5xx and 529 overloaded -> provider_error, retryable), whatever type the body names; the type
 * refines only a status that does not decide (a 4xx naming a rate limit, an overload or an API error, a 404
 * not_found_error about the model -> model_not_found; content refusals by the shared rules).
 */
const BY_TYPE: Record<string, ErrorCode> = {
  authentication_error: 'invalid_api_key',
  permission_error: 'invalid_api_key',
  rate_limit_error: 'rate_limit_exceeded',
  overloaded_error: 'provider_error',
  api_error: 'provider_error',
};

/** HTTP statuses of the error types, for errors that arrive inside a stream. */
const STATUS_OF_TYPE: Record<string, number> = {
  invalid_request_error: 400,
  authentication_error: 401,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  overloaded_error: 529,
};

export function mapAnthropicError(status: number, body: Buffer, headers: IncomingHttpHeaders): GatewayError {
  const parsed = parseErrorBody(body);
  const err = typeof parsed === 'object' && parsed !== null ? (parsed as { error?: { type?: unknown; message?: unknown } | null }).error : undefined;
  const type = typeof err?.type === 'string' ? err.type : undefined;
  const message = typeof err?.message === 'string' ? err.message : typeof parsed === 'string' ? parsed.slice(0, 500) : undefined;
  // own members only: an upstream-chosen type such as `__proto__` names nothing
  let gatewayCode = type && Object.hasOwn(BY_TYPE, type) ? BY_TYPE[type] : undefined;
  if (type === 'not_found_error' && /^model\b/i.test(message ?? '')) gatewayCode = 'model_not_found';
  return upstreamError('anthropic', status, { message, code: type, gatewayCode }, headers);
}

/** An `error` event in the middle of a stream. */
export function anthropicStreamError(error: unknown): GatewayError {
  const given = (error as { type?: unknown } | null | undefined)?.type;
  const type = typeof given === 'string' ? given : 'api_error';
  const status = (Object.hasOwn(STATUS_OF_TYPE, type) ? STATUS_OF_TYPE[type] : undefined) ?? 500;
  return mapAnthropicError(status, Buffer.from(JSON.stringify({ type: 'error', error })), {});
}
