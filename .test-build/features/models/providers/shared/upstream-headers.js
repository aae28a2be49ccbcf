/** The headers of the contract, in OpenAI's own names. */
export const PASSED_HEADER_NAMES = [
    'x-request-id',
    'x-ratelimit-limit-requests',
    'x-ratelimit-limit-tokens',
    'x-ratelimit-remaining-requests',
    'x-ratelimit-remaining-tokens',
    'x-ratelimit-reset-requests',
    'x-ratelimit-reset-tokens',
    'retry-after',
    'openai-processing-ms',
];
/** OpenAI and the providers that copy its headers. */
export const OPENAI_HEADERS = Object.fromEntries(PASSED_HEADER_NAMES.map((name) => [name, { from: [name] }]));
/** A duration as OpenAI writes reset times: "20ms", "6s", "1m30s", "2h0m0s". */
export function openAIDuration(ms) {
    if (ms < 1000)
        return `${Math.max(0, Math.round(ms))}ms`;
    let seconds = Math.round(ms / 1000);
    const hours = Math.floor(seconds / 3600);
    seconds -= hours * 3600;
    const minutes = Math.floor(seconds / 60);
    seconds -= minutes * 60;
    if (hours > 0)
        return `${hours}h${minutes}m${seconds}s`;
    if (minutes > 0)
        return `${minutes}m${seconds}s`;
    return `${seconds}s`;
}
/** A reset given as a point in time (RFC 3339) or as seconds -> OpenAI's duration until it. */
export function resetDuration(raw) {
    const text = raw.trim();
    if (/^\d+(\.\d+)?$/.test(text))
        return openAIDuration(Number(text) * 1000);
    const at = Date.parse(text);
    return Number.isNaN(at) ? undefined : openAIDuration(at - Date.now());
}
/** Anthropic: request-id, anthropic-ratelimit-{requests,tokens}-{limit,remaining,reset}. */
export const ANTHROPIC_HEADERS = {
    'x-request-id': { from: ['request-id', 'x-request-id'] },
    'x-ratelimit-limit-requests': { from: ['anthropic-ratelimit-requests-limit'] },
    'x-ratelimit-limit-tokens': { from: ['anthropic-ratelimit-tokens-limit', 'anthropic-ratelimit-input-tokens-limit'] },
    'x-ratelimit-remaining-requests': { from: ['anthropic-ratelimit-requests-remaining'] },
    'x-ratelimit-remaining-tokens': { from: ['anthropic-ratelimit-tokens-remaining', 'anthropic-ratelimit-input-tokens-remaining'] },
    'x-ratelimit-reset-requests': { from: ['anthropic-ratelimit-requests-reset'], value: resetDuration },
    'x-ratelimit-reset-tokens': { from: ['anthropic-ratelimit-tokens-reset', 'anthropic-ratelimit-input-tokens-reset'], value: resetDuration },
    'retry-after': { from: ['retry-after'] },
};
/** Amazon Bedrock: x-amzn-requestid; no rate-limit headers. */
export const BEDROCK_HEADERS = {
    'x-request-id': { from: ['x-amzn-requestid', 'x-amz-request-id'] },
    'retry-after': { from: ['retry-after'] },
};
/** Google (Gemini API, Vertex AI): no request id header of its own; Retry-After when sent. */
export const GOOGLE_HEADERS = {
    'x-request-id': { from: ['x-request-id'] },
    'retry-after': { from: ['retry-after'] },
};
/** Azure OpenAI: OpenAI's names, the API Management request id when x-request-id is missing. */
export const AZURE_HEADERS = { ...OPENAI_HEADERS, 'x-request-id': { from: ['x-request-id', 'apim-request-id'] } };
/** Cohere: its request id, and Retry-After. */
export const COHERE_HEADERS = {
    'x-request-id': { from: ['x-request-id', 'x-debug-trace-id'] },
    'retry-after': { from: ['retry-after'] },
};
/** Providers whose rate-limit headers carry no requests/tokens suffix (Together): read as the request limits. */
export const BARE_RATELIMIT_HEADERS = {
    ...OPENAI_HEADERS,
    'x-ratelimit-limit-requests': { from: ['x-ratelimit-limit-requests', 'x-ratelimit-limit'] },
    'x-ratelimit-remaining-requests': { from: ['x-ratelimit-remaining-requests', 'x-ratelimit-remaining'] },
    'x-ratelimit-reset-requests': { from: ['x-ratelimit-reset-requests', 'x-ratelimit-reset'] },
};
/** The headers the caller gets from one upstream answer (empty when none of them came). */
export function passedHeaders(passing, headers) {
    const out = {};
    for (const name in passing) {
        const rule = passing[name];
        for (const source of rule.from) {
            const raw = headers[source];
            const text = Array.isArray(raw) ? raw[0] : raw;
            if (typeof text !== 'string' || text === '')
                continue;
            const value = rule.value ? rule.value(text) : text;
            if (value !== undefined && !/[\r\n\0]/.test(value))
                out[name] = value;
            break;
        }
    }
    return out;
}
//# sourceMappingURL=upstream-headers.js.map