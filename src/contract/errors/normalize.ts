import type { ErrorCode } from './catalogue.js';
import { GatewayError, internalError } from './gateway-error.js';

/** Certificate and handshake failures OpenSSL reports by code (besides ERR_SSL_* and ERR_TLS_*). */
const TLS_CODES = new Set([
  'EPROTO',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_UNTRUSTED',
  'CERT_REVOKED',
  'HOSTNAME_MISMATCH',
  'CERT_SIGNATURE_FAILURE',
  'UNABLE_TO_DECRYPT_CERT_SIGNATURE',
]);

/** Whether an error is a failed TLS handshake (a plain-HTTP upstream, a bad certificate). */
export function isTlsFailure(code: string): boolean {
  return code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_') || TLS_CODES.has(code);
}

/** The catalogue code an error of the kernel's HTTP edge (body reading, uploads) answers with, by its status. */
const CODE_BY_STATUS: Record<number, ErrorCode> = {
  400: 'missing_required_parameter',
  401: 'invalid_api_key',
  403: 'insufficient_permissions',
  404: 'not_found',
  408: 'request_timeout',
  422: 'semantic_error',
  429: 'rate_limit_exceeded',
  431: 'headers_too_large',
  500: 'internal_error',
  502: 'provider_error',
  503: 'service_unavailable',
  504: 'request_timeout',
};

/** A problem the HTTP edge found with the request itself (kernel/errors/request-error.ts): recognised by shape. */
interface RequestProblem {
  name: 'RequestError';
  status: number;
  message: string;
  param?: string | null;
}

function isRequestProblem(err: unknown): err is RequestProblem {
  const e = err as Partial<RequestProblem> | null;
  return !!e && e.name === 'RequestError' && typeof e.status === 'number' && typeof e.message === 'string';
}

/**
 * Any failure as one catalogue error: gateway errors pass; the edge's request problems keep
 * their status and message; undici's network and timeout errors become provider or timeout
 * errors, failed TLS handshakes provider errors (502), and a header value undici refuses a 400;
 * anything else is a 500 that reveals nothing.
 */
export function normalizeError(err: unknown, provider?: string): GatewayError {
  if (err instanceof GatewayError) return err;
  if (isRequestProblem(err)) {
    return new GatewayError(CODE_BY_STATUS[err.status] ?? 'missing_required_parameter', err.message, { param: err.param ?? null, cause: err });
  }
  const e = err as { code?: string; name?: string; message?: string } | undefined;
  const code = e?.code ?? '';
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT' || e?.name === 'TimeoutError') {
    return new GatewayError('request_timeout', `${provider ?? 'The upstream'} did not answer in time.`, {
      provider,
      retryable: true,
      cause: err,
    });
  }
  if (isTlsFailure(code)) {
    return new GatewayError('provider_error', `The TLS handshake with ${provider ?? 'the upstream'} failed (${code}).`, {
      provider,
      retryable: true,
      cause: err,
    });
  }
  if (code === 'UND_ERR_INVALID_ARG' || code === 'ERR_INVALID_CHAR' || code === 'ERR_INVALID_HTTP_TOKEN') {
    return new GatewayError(
      'missing_required_parameter',
      'A value of this request cannot be sent upstream (a header value with a line break, NUL or a character a header cannot carry).',
      {
        provider,
        cause: err,
      },
    );
  }
  if (code.startsWith('UND_ERR') || ['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNABORTED'].includes(code)) {
    return new GatewayError('provider_error', `Could not reach ${provider ?? 'the upstream'} (${code}).`, {
      provider,
      retryable: true,
      cause: err,
    });
  }
  return internalError(err);
}
