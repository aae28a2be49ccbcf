/**
 * Errors of Google's APIs (Gemini API and Vertex AI): `{"error": {"code", "message", "status",
 * "details": [{"@type": ".../google.rpc.ErrorInfo", "reason"}, {"@type": ".../google.rpc.RetryInfo",
 * "retryDelay": "33s"}]}}` -> gateway errors, through the shared upstream-error rules.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { ErrorCode } from '../../../../contract/errors/catalogue.js';
import type { GatewayError } from '../../../../contract/errors/gateway-error.js';
import { parseErrorBody, upstreamError } from '../shared/upstream-error.js';

type Json = Record<string, unknown>;

/** ErrorInfo reasons that mean the key itself is bad, whatever the HTTP status says. */
const KEY_REASONS = new Set(['API_KEY_INVALID', 'API_KEY_EXPIRED', 'API_KEY_SERVICE_BLOCKED', 'ACCESS_TOKEN_EXPIRED', 'ACCESS_TOKEN_TYPE_UNSUPPORTED', 'CREDENTIALS_MISSING']);

/** google.rpc status names -> gateway codes, where the status alone decides. */
const STATUS_CODES: Readonly<Record<string, ErrorCode>> = {
  UNAUTHENTICATED: 'invalid_api_key',
  PERMISSION_DENIED: 'invalid_api_key',
  NOT_FOUND: 'model_not_found',
  RESOURCE_EXHAUSTED: 'rate_limit_exceeded',
  UNAVAILABLE: 'provider_error',
  INTERNAL: 'provider_error',
};

export function mapGoogleError(provider: string, status: number, body: Buffer, headers: IncomingHttpHeaders): GatewayError {
  const parsed = parseErrorBody(body);
  const err = (Array.isArray(parsed) ? parsed[0]?.error : typeof parsed === 'object' && parsed !== null ? (parsed as { error?: unknown }).error : undefined) as Json | undefined;
  const message = typeof err?.message === 'string' ? err.message : typeof parsed === 'string' ? parsed.slice(0, 500) : undefined;
  return googleStatusError(provider, status, err, message, headers);
}

/** An error object that arrived inside a stream (`data: {"error": {...}}`). */
export function mapGoogleStreamError(provider: string, err: Json): GatewayError {
  const status = typeof err.code === 'number' ? err.code : 500;
  return googleStatusError(provider, status, err, typeof err.message === 'string' ? err.message : undefined, {});
}

function googleStatusError(provider: string, status: number, err: Json | undefined, message: string | undefined, headers: IncomingHttpHeaders): GatewayError {
  const details: Json[] = Array.isArray(err?.details) ? err.details : [];
  const reason = details.find((d) => typeof d?.reason === 'string')?.reason as string | undefined;
  const rpcStatus = typeof err?.status === 'string' ? err.status : undefined;
  let gatewayCode: ErrorCode | undefined;
  if (reason && KEY_REASONS.has(reason)) gatewayCode = 'invalid_api_key';
  else if (status === 404) gatewayCode = 'model_not_found';
  else if (rpcStatus && Object.hasOwn(STATUS_CODES, rpcStatus)) gatewayCode = STATUS_CODES[rpcStatus];
  const retryHeaders = withRetryDelay(headers, details);
  return upstreamError(provider, status, { message, code: reason ?? rpcStatus, gatewayCode }, retryHeaders);
}

/** RetryInfo.retryDelay ("33s", "1.5s") stands in for a Retry-After header the answer lacks. */
function withRetryDelay(headers: IncomingHttpHeaders, details: Json[]): IncomingHttpHeaders {
  if (headers['retry-after']) return headers;
  const delay = details.find((d) => typeof d?.retryDelay === 'string')?.retryDelay as string | undefined;
  const seconds = delay ? /^(\d+(?:\.\d+)?)s$/.exec(delay.trim())?.[1] : undefined;
  return seconds ? { ...headers, 'retry-after': String(Math.ceil(Number(seconds))) } : headers;
}
