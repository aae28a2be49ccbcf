/**
 * Vertex AI's error module: API errors share Google's shape (../gemini/errors.ts); the OAuth
 * token endpoint answers `{"error": "invalid_grant", "error_description": "..."}`.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { GatewayError } from '../../../../contract/errors/gateway-error.js';
import { mapGoogleError } from '../gemini/errors.js';
import { parseErrorBody, retryAfterSeconds } from '../shared/upstream-error.js';

export const mapVertexError = (provider: string, status: number, body: Buffer, headers: IncomingHttpHeaders): GatewayError => mapGoogleError(provider, status, body, headers);

/** A refused token exchange: a bad service account is the caller's credential problem (401). */
export function tokenEndpointError(provider: string, status: number, body: Buffer, headers: IncomingHttpHeaders): GatewayError {
  // The token endpoint's OAuth error ({error, error_description}); any other JSON value reads as no field.
  const parsed = parseErrorBody(body) as { error?: unknown; error_description?: unknown } | null | undefined;
  const code = typeof parsed?.error === 'string' ? parsed.error : undefined;
  const description = typeof parsed?.error_description === 'string' ? parsed.error_description : undefined;
  const detail = [code, description].filter(Boolean).join(': ') || `HTTP ${status}`;
  if (status === 429) {
    const retryAfter = retryAfterSeconds(headers);
    return new GatewayError('rate_limit_exceeded', `The service account token endpoint is rate limiting (${detail}).`, {
      provider,
      upstreamStatus: status,
      retryAfter,
      headers: { 'retry-after': String(Math.ceil(retryAfter ?? 1)) },
      retryable: true,
    });
  }
  if (status >= 400 && status < 500) {
    return new GatewayError('invalid_api_key', `The service account was refused by its token endpoint (${detail}).`, { provider, upstreamStatus: status });
  }
  return new GatewayError('provider_error', `The service account token endpoint failed (${detail}).`, { provider, upstreamStatus: status, retryable: true });
}
