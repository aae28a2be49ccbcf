/**
 * A problem the HTTP edge finds with a request by itself (a body too large, malformed JSON, a
 * broken upload): a status, a message and the part of the request at fault. The gateway's error
 * mapping (given to the edge at start-up) turns it into the catalogue's error of that status.
 */
export class RequestError extends Error {
    status;
    param;
    name = 'RequestError';
    constructor(status, message, param = null) {
        super(message);
        this.status = status;
        this.param = param;
    }
}
/** 400: the request is malformed or misses something (`param` names what). */
export const badRequest = (message, param) => new RequestError(400, message, param ?? null);
export function isRequestError(value) {
    return value instanceof RequestError;
}
//# sourceMappingURL=request-error.js.map