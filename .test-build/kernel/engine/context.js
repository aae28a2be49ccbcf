import { CallerSignal } from './caller-signal.js';
const DIRECT = Object.freeze({ kind: 'direct' });
const EMPTY_PARAMS = Object.freeze({});
/**
 * Everything a request carries through its pipeline. The fixed fields are the ones every route
 * has (and the stable plugin API: route, method, path, headers, identity, responseHeaders,
 * reject); feature data lives in typed slots (`get`/`set` with a Slot).
 */
export class GatewayContext {
    edge;
    decorate;
    id;
    /** performance.now() when the request arrived. */
    startedAt;
    /** The matched route pattern, e.g. "POST /v1/files/{file_id}" ('*' for an unknown route). */
    route;
    method;
    /** The request path, without the query. */
    path;
    /** Request headers, lower case. */
    headers;
    /** Path parameters of the route ({file_id}...). */
    params;
    /**
     * Aborted when the caller disconnects (for an upstream call: `callerSignal`, no retry outlives
     * the caller either). A cheap CallerSignal stands for it until a stage asks for this one.
     */
    callerSignal;
    abortSignal;
    /** The route table entry served. */
    endpoint;
    req;
    res;
    /** x-gateway-debug: true (adds error.debug to error answers). */
    debug;
    /** The authenticated caller, or null. */
    identity = null;
    /** Headers added to whatever the answer is, errors included. */
    responseHeaders = {};
    response = undefined;
    error = undefined;
    /** Credentials seen in this request; scrubbed from every error and log line. */
    secrets = [];
    rawQuery;
    parsedQuery;
    slots = [];
    constructor(edge, id, endpoint, req, res, params, signal, decorate) {
        this.edge = edge;
        this.decorate = decorate;
        this.id = id;
        this.startedAt = performance.now();
        this.endpoint = endpoint;
        this.route = endpoint.key;
        this.req = req;
        this.res = res;
        this.method = req.method ?? 'GET';
        const url = req.url ?? '/';
        const q = url.indexOf('?');
        this.path = q < 0 ? url : url.slice(0, q);
        this.rawQuery = q < 0 ? '' : url.slice(q + 1);
        this.headers = req.headers;
        this.params = params ?? EMPTY_PARAMS;
        this.callerSignal = signal;
        if (!(signal instanceof CallerSignal))
            this.abortSignal = signal;
        const debug = req.headers['x-gateway-debug'];
        this.debug = debug === 'true' || debug === '1';
    }
    /** Aborted when the caller disconnects: no upstream call or retry outlives the caller. */
    get signal() {
        if (this.abortSignal)
            return this.abortSignal;
        const caller = this.callerSignal;
        const controller = new AbortController();
        if (caller.aborted)
            controller.abort(caller.reason);
        else
            caller.once('abort', () => controller.abort(caller.reason));
        return (this.abortSignal = controller.signal);
    }
    /** Whether the caller went away. */
    get callerGone() {
        return this.callerSignal.aborted;
    }
    /** The query string's parameters (parsed on first use). */
    get query() {
        return (this.parsedQuery ??= new URLSearchParams(this.rawQuery));
    }
    get(slot) {
        return this.slots[slot.index];
    }
    set(slot, value) {
        this.slots[slot.index] = value;
    }
    has(slot) {
        return this.slots[slot.index] !== undefined;
    }
    /**
     * The headers every answer of this request carries: the request id, those the pipeline's
     * stages add (x-gateway-provider...), and ctx.responseHeaders.
     */
    answerHeaders() {
        const headers = { 'x-gateway-request-id': this.id };
        this.decorate?.(this, headers);
        const own = this.responseHeaders;
        for (const key in own)
            headers[key] = own[key];
        return headers;
    }
    /**
     * For a stage that writes the answer on the socket itself (a protocol transport): puts the
     * answer's headers on the response and marks the answer as written by the stage.
     */
    claimResponse() {
        const headers = this.answerHeaders();
        for (const key in headers)
            this.res.setHeader(key, headers[key]);
        this.response = DIRECT;
        return this.res;
    }
    /**
     * Answers with the contract's error body and `status`; nothing after the calling stage runs
     * (it throws: stages before it see the failure as their `next()` failing).
     */
    reject(status, detail = {}) {
        throw this.edge.rejection(status, detail);
    }
}
export function parseBooleanHeader(value) {
    const v = Array.isArray(value) ? value[0] : value;
    return v === 'true' || v === '1';
}
export function headerValue(headers, name) {
    const v = headers[name];
    return Array.isArray(v) ? v[0] : v;
}
//# sourceMappingURL=context.js.map