/** The contract's error body for a gateway error; `debug` only under x-gateway-debug. */
export function toErrorBody(err, debug) {
    const body = {
        status: 'failure',
        message: err.message,
        error: { type: err.type, code: err.code, message: err.message, param: err.param, provider: err.provider },
    };
    if (debug !== undefined)
        body.error.debug = debug;
    return body;
}
//# sourceMappingURL=error-body.js.map