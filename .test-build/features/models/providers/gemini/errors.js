import { parseErrorBody, upstreamError } from '../shared/upstream-error.js';
/** ErrorInfo reasons that mean the key itself is bad, whatever the HTTP status says. */
const KEY_REASONS = new Set(['API_KEY_INVALID', 'API_KEY_EXPIRED', 'API_KEY_SERVICE_BLOCKED', 'ACCESS_TOKEN_EXPIRED', 'ACCESS_TOKEN_TYPE_UNSUPPORTED', 'CREDENTIALS_MISSING']);
/** google.rpc status names -> gateway codes, where the status alone decides. */
const STATUS_CODES = {
    UNAUTHENTICATED: 'invalid_api_key',
    PERMISSION_DENIED: 'invalid_api_key',
    NOT_FOUND: 'model_not_found',
    RESOURCE_EXHAUSTED: 'rate_limit_exceeded',
    UNAVAILABLE: 'provider_error',
    INTERNAL: 'provider_error',
};
export function mapGoogleError(provider, status, body, headers) {
    const parsed = parseErrorBody(body);
    const err = Array.isArray(parsed) ? parsed[0]?.error : typeof parsed === 'object' && parsed !== null ? parsed.error : undefined;
    const message = typeof err?.message === 'string' ? err.message : typeof parsed === 'string' ? parsed.slice(0, 500) : undefined;
    return googleStatusError(provider, status, err, message, headers);
}
/** An error object that arrived inside a stream (`data: {"error": {...}}`). */
export function mapGoogleStreamError(provider, err) {
    const status = typeof err.code === 'number' ? err.code : 500;
    return googleStatusError(provider, status, err, typeof err.message === 'string' ? err.message : undefined, {});
}
function googleStatusError(provider, status, err, message, headers) {
    const details = Array.isArray(err?.details) ? err.details : [];
    const reason = details.find((d) => typeof d?.reason === 'string')?.reason;
    const rpcStatus = typeof err?.status === 'string' ? err.status : undefined;
    let gatewayCode;
    if (reason && KEY_REASONS.has(reason))
        gatewayCode = 'invalid_api_key';
    else if (status === 404)
        gatewayCode = 'model_not_found';
    else if (rpcStatus && STATUS_CODES[rpcStatus])
        gatewayCode = STATUS_CODES[rpcStatus];
    const retryHeaders = withRetryDelay(headers, details);
    return upstreamError(provider, status, { message, code: reason ?? rpcStatus, gatewayCode }, retryHeaders);
}
/** RetryInfo.retryDelay ("33s", "1.5s") stands in for a Retry-After header the answer lacks. */
function withRetryDelay(headers, details) {
    if (headers['retry-after'])
        return headers;
    const delay = details.find((d) => typeof d?.retryDelay === 'string')?.retryDelay;
    const seconds = delay ? /^(\d+(?:\.\d+)?)s$/.exec(delay.trim())?.[1] : undefined;
    return seconds ? { ...headers, 'retry-after': String(Math.ceil(Number(seconds))) } : headers;
}
//# sourceMappingURL=errors.js.map