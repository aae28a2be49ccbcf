import { ERROR_CATALOGUE } from './catalogue.js';
import { toErrorBody } from './error-body.js';
/**
 * An error the gateway answers with: one code from the catalogue, its status follows. The HTTP
 * edge writes it through `answerBody` (the contract's body), whatever route it happens on.
 */
export class GatewayError extends Error {
    code;
    type;
    status;
    param;
    provider;
    headers;
    upstreamStatus;
    upstreamBody;
    retryable;
    retryAfter;
    constructor(code, message, options = {}) {
        super(message, options.cause === undefined ? undefined : { cause: options.cause });
        const entry = ERROR_CATALOGUE[code];
        this.name = 'GatewayError';
        this.code = code;
        this.type = entry.type;
        this.status = entry.status;
        this.param = options.param ?? null;
        this.provider = options.provider ?? null;
        this.headers = options.headers;
        this.upstreamStatus = options.upstreamStatus;
        this.upstreamBody = options.upstreamBody;
        this.retryable = options.retryable ?? false;
        this.retryAfter = options.retryAfter;
    }
    /** The fields x-gateway-debug adds first (the rest come from the pipeline and the edge). */
    debugFields() {
        return { upstream_status: this.upstreamStatus ?? null, upstream_body: this.upstreamBody ?? null };
    }
    /** The contract's error body, with `debug` under x-gateway-debug. */
    answerBody(debug) {
        return toErrorBody(this, debug);
    }
}
export function isGatewayError(value) {
    return value instanceof GatewayError;
}
/** Shorthands for the errors raised most often. */
export const badRequest = (message, param) => new GatewayError('missing_required_parameter', message, { param });
export const semanticError = (message, param) => new GatewayError('semantic_error', message, { param });
export const notFound = (message, param) => new GatewayError('not_found', message, { param });
export const unauthorized = (message) => new GatewayError('invalid_api_key', message);
export const forbidden = (message) => new GatewayError('insufficient_permissions', message);
export const internalError = (cause) => new GatewayError('internal_error', 'The gateway hit an unexpected error.', { cause });
//# sourceMappingURL=gateway-error.js.map