import type { IncomingHttpHeaders } from 'node:http';
import type { GatewayError } from '../../../../contract/errors/gateway-error.js';
import type { ErrorCode } from '../../../../contract/errors/catalogue.js';
import { parseErrorBody, upstreamError } from '../shared/upstream-error.js';

/**
 * Cohere's errors: {"id": "...", "message": "..."} with the HTTP status saying what happened.
 * 498 (invalid token) -> invalid_api_key; 402 (payment required) -> insufficient_permissions;
 * 429 -> rate limit with Retry-After; 5xx -> provider_error; unknown model (404 "model ... not
 * found") -> model_not_found; the rest by the shared rules.
 */
const BY_STATUS: Record<number, ErrorCode> = {
  498: 'invalid_api_key',
  402: 'insufficient_permissions',
  499: 'provider_error',
};

export function mapCohereError(status: number, body: Buffer, headers: IncomingHttpHeaders): GatewayError {
  const parsed = parseErrorBody(body);
  const message =
    typeof parsed === 'object' && parsed !== null
      ? typeof (parsed as { message?: unknown }).message === 'string'
        ? (parsed as { message: string }).message
        : undefined
      : typeof parsed === 'string'
        ? parsed.slice(0, 500)
        : undefined;
  return upstreamError('cohere', status, { message, gatewayCode: BY_STATUS[status] }, headers);
}
