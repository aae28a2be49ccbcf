import { GatewayError, internalError } from './gateway-error.js';

/** Gateway errors pass; undici's network and timeout errors map to the catalogue; the rest are 500s. */
export function normalizeError(err: unknown, provider?: string): GatewayError {
  if (err instanceof GatewayError) return err;
  const e = err as { code?: string; name?: string; message?: string } | undefined;
  const code = e?.code ?? '';
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT' || e?.name === 'TimeoutError') {
    return new GatewayError('request_timeout', `${provider ?? 'The upstream'} did not answer in time.`, {
      provider,
      retryable: true,
      cause: err,
    });
  }
  if (
    code.startsWith('UND_ERR') ||
    ['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNABORTED'].includes(code)
  ) {
    return new GatewayError('provider_error', `Could not reach ${provider ?? 'the upstream'} (${code}).`, {
      provider,
      retryable: true,
      cause: err,
    });
  }
  return internalError(err);
}
