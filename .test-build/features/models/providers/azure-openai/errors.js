import { mapOpenAIError } from '../openai-compatible/openai-errors.js';
import { parseErrorBody, upstreamError } from '../shared/upstream-error.js';
const CONTENT_FILTER_CODES = new Set(['content_filter', 'contentfilter', 'responsibleaipolicyviolation', 'content_policy_violation']);
const MODEL_CODES = new Set(['deploymentnotfound', 'model_not_found', 'modelnotfound']);
export function mapAzureError(provider, status, body, headers) {
    const parsed = parseErrorBody(body);
    const err = typeof parsed === 'object' && parsed !== null ? (parsed.error ?? parsed) : undefined;
    const codes = [err?.code, err?.innererror?.code, err?.inner_error?.code]
        .filter((c) => typeof c === 'string')
        .map((c) => c.toLowerCase());
    const message = typeof err?.message === 'string' ? err.message : undefined;
    if (codes.some((c) => CONTENT_FILTER_CODES.has(c))) {
        return upstreamError(provider, status, { message, code: codes[0], gatewayCode: 'content_policy_violation' }, headers);
    }
    if (codes.some((c) => MODEL_CODES.has(c))) {
        return upstreamError(provider, status, { message, code: codes[0], gatewayCode: 'model_not_found' }, headers);
    }
    return mapOpenAIError(provider, status, body, headers);
}
//# sourceMappingURL=errors.js.map