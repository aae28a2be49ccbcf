import { describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE } from '../../../../src/contract/errors/catalogue.js';
import { toErrorBody } from '../../../../src/contract/errors/error-body.js';
import { GatewayError, badRequest, semanticError } from '../../../../src/contract/errors/gateway-error.js';
import { normalizeError } from '../../../../src/contract/errors/normalize.js';

describe('the error catalogue (contract section 4)', () => {
  it('maps every code to its type and status', () => {
    const table = Object.fromEntries(Object.entries(ERROR_CATALOGUE).map(([code, e]) => [code, `${e.type} ${e.status}`]));
    expect(table).toEqual({
      invalid_api_key: 'authentication_error 401',
      insufficient_permissions: 'permission_error 403',
      missing_required_parameter: 'invalid_request_error 400',
      headers_too_large: 'invalid_request_error 431',
      semantic_error: 'invalid_request_error 422',
      not_found: 'invalid_request_error 404',
      conflict: 'invalid_request_error 409',
      guardrail_failed: 'guardrail_error 422',
      model_not_found: 'provider_error 404',
      provider_error: 'provider_error 502',
      content_policy_violation: 'provider_error 400',
      rate_limit_exceeded: 'rate_limit_error 429',
      budget_exceeded: 'rate_limit_error 429',
      request_timeout: 'timeout_error 504',
      service_unavailable: 'service_unavailable 503',
      internal_error: 'api_error 500',
    });
  });

  it('writes the contract body', () => {
    expect(toErrorBody(badRequest('temperature: must be <= 2', 'temperature'))).toEqual({
      status: 'failure',
      message: 'temperature: must be <= 2',
      error: { type: 'invalid_request_error', code: 'missing_required_parameter', message: 'temperature: must be <= 2', param: 'temperature', provider: null },
    });
    const err = semanticError('n must be 1', 'n');
    expect(err.status).toBe(422);
    expect(toErrorBody(new GatewayError('provider_error', 'down', { provider: 'openai' }), { upstream_status: 503 }).error).toEqual({
      type: 'provider_error',
      code: 'provider_error',
      message: 'down',
      param: null,
      provider: 'openai',
      debug: { upstream_status: 503 },
    });
  });
});

describe('normalizeError', () => {
  const netError = (code: string) => Object.assign(new Error(`connect ${code} 127.0.0.1:9`), { code });

  it('keeps gateway errors as they are', () => {
    const err = badRequest('x', 'y');
    expect(normalizeError(err)).toBe(err);
  });

  it.each(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'UND_ERR_SOCKET'])('a network failure (%s) is a retryable 502 provider_error', (code) => {
    const out = normalizeError(netError(code), 'groq');
    expect(out).toMatchObject({ code: 'provider_error', status: 502, provider: 'groq', retryable: true });
    expect(out.message).toContain(code);
  });

  it.each(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT'])('a timeout (%s) is a 504 request_timeout', (code) => {
    expect(normalizeError(netError(code), 'groq')).toMatchObject({ code: 'request_timeout', status: 504, provider: 'groq' });
  });

  it('anything else is a 500 that reveals nothing of the cause', () => {
    const out = normalizeError(new TypeError("Cannot read properties of undefined (reading 'secret')"));
    expect(out).toMatchObject({ code: 'internal_error', status: 500, message: 'The gateway hit an unexpected error.' });
  });
});
