import type { IncomingHttpHeaders } from 'node:http';
import type { GatewayError } from '../../../../contract/errors/gateway-error.js';
import type { ErrorCode } from '../../../../contract/errors/catalogue.js';
import { parseErrorBody, upstreamError } from '../shared/upstream-error.js';

/**
 * Bedrock's errors: {"message": "..."} with the exception name in x-amzn-errortype (or
 * `__type`). The status decides first for 401/403, 429 and 5xx (the shared rules); the
 * exception refines the others: ThrottlingException and quota -> rate limit with Retry-After;
 * ServiceUnavailable, model and server errors -> provider_error; unknown model ->
 * model_not_found; bad or expired credentials -> invalid_api_key; the rest by status.
 */
const BY_EXCEPTION: Record<string, ErrorCode> = {
  ThrottlingException: 'rate_limit_exceeded',
  ServiceQuotaExceededException: 'rate_limit_exceeded',
  ServiceUnavailableException: 'provider_error',
  InternalServerException: 'provider_error',
  ModelErrorException: 'provider_error',
  ModelStreamErrorException: 'provider_error',
  ModelNotReadyException: 'provider_error',
  ModelTimeoutException: 'request_timeout',
  ResourceNotFoundException: 'model_not_found',
  AccessDeniedException: 'invalid_api_key',
  UnrecognizedClientException: 'invalid_api_key',
  InvalidSignatureException: 'invalid_api_key',
  ExpiredTokenException: 'invalid_api_key',
  IncompleteSignatureException: 'invalid_api_key',
};

/** Statuses of exceptions that arrive inside a stream (Bedrock's documented ones: the status decides first, see upstreamError). */
const STATUS_OF_EXCEPTION: Record<string, number> = {
  ThrottlingException: 429,
  ServiceUnavailableException: 503,
  InternalServerException: 500,
  ModelStreamErrorException: 424,
  ModelErrorException: 424,
  ModelNotReadyException: 429,
  ValidationException: 400,
  ServiceQuotaExceededException: 400,
  ModelTimeoutException: 408,
  ResourceNotFoundException: 404,
  AccessDeniedException: 403,
  UnrecognizedClientException: 403,
  InvalidSignatureException: 403,
  ExpiredTokenException: 403,
  IncompleteSignatureException: 403,
};

function exceptionName(raw: unknown): string | undefined {
  if (typeof raw !== 'string' || raw === '') return undefined;
  const name = raw.split(':')[0]!.split('#').pop()!;
  return name.charAt(0).toUpperCase() + name.slice(1);
}

export function mapBedrockError(status: number, body: Buffer, headers: IncomingHttpHeaders): GatewayError {
  const parsed = parseErrorBody(body);
  const fields: { __type?: unknown; message?: unknown; Message?: unknown } = typeof parsed === 'object' && parsed !== null ? parsed : {};
  const header = headers['x-amzn-errortype'];
  const exception = exceptionName(Array.isArray(header) ? header[0] : header) ?? exceptionName(fields.__type);
  const message =
    typeof fields.message === 'string' ? fields.message : typeof fields.Message === 'string' ? fields.Message : typeof parsed === 'string' ? parsed.slice(0, 500) : undefined;
  // own members only: an upstream-chosen name such as `__proto__` names nothing
  const gatewayCode = exception && Object.hasOwn(BY_EXCEPTION, exception) ? BY_EXCEPTION[exception] : undefined;
  return upstreamError('bedrock', status, { message, code: exception, gatewayCode }, headers);
}

/** An exception message inside a ConverseStream (":exception-type" names it, e.g. throttlingException). */
export function bedrockStreamError(exceptionType: string | undefined, payload: Buffer): GatewayError {
  const exception = exceptionName(exceptionType) ?? 'InternalServerException';
  return mapBedrockError((Object.hasOwn(STATUS_OF_EXCEPTION, exception) ? STATUS_OF_EXCEPTION[exception] : undefined) ?? 500, payload, { 'x-amzn-errortype': exception });
}
