/**
 * The one catalogue of gateway errors: every error code the contract names, with its type
 * and HTTP status. `GatewayError` instances carry a code from here; `toErrorBody` writes the
 * contract's body. Nothing else in the code base decides an error's status.
 */
export const ERROR_CATALOGUE = {
  invalid_api_key: { type: 'authentication_error', status: 401 },
  insufficient_permissions: { type: 'permission_error', status: 403 },
  missing_required_parameter: { type: 'invalid_request_error', status: 400 },
  headers_too_large: { type: 'invalid_request_error', status: 431 },
  semantic_error: { type: 'invalid_request_error', status: 422 },
  not_found: { type: 'invalid_request_error', status: 404 },
  conflict: { type: 'invalid_request_error', status: 409 },
  guardrail_failed: { type: 'guardrail_error', status: 422 },
  model_not_found: { type: 'provider_error', status: 404 },
  provider_error: { type: 'provider_error', status: 502 },
  content_policy_violation: { type: 'provider_error', status: 400 },
  rate_limit_exceeded: { type: 'rate_limit_error', status: 429 },
  budget_exceeded: { type: 'rate_limit_error', status: 429 },
  request_timeout: { type: 'timeout_error', status: 504 },
  service_unavailable: { type: 'service_unavailable', status: 503 },
  internal_error: { type: 'api_error', status: 500 },
} as const;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;
export type ErrorType = (typeof ERROR_CATALOGUE)[ErrorCode]['type'];
