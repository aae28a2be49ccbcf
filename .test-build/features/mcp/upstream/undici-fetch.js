import { setMaxListeners } from 'node:events';
import { Readable } from 'node:stream';
import { request } from 'undici';
const NO_BODY = new Set([101, 202, 204, 205, 304]);
/** Signals already allowed one listener per concurrent request (a shared session's signal). */
const raised = new WeakSet();
function flatHeaders(init) {
    const out = {};
    new Headers(init).forEach((value, name) => {
        out[name] = value;
    });
    return out;
}
/**
 * The fetch the SDK's Streamable HTTP client transport calls, made on undici's request API
 * with the gateway's own connection pool. The global fetch adds a listener to the transport's
 * long-lived AbortSignal on every request and drops it only at garbage collection, so a busy
 * shared session piles up thousands of them (and a warning per request); undici's request
 * removes its listener when the exchange ends. JSON answers are read whole; event streams are
 * passed on as streams.
 */
export function undiciFetch(dispatcher) {
    return async (url, init = {}) => {
        const method = (init.method ?? 'GET').toUpperCase();
        if (init.signal && !raised.has(init.signal)) {
            // The transport's one signal serves every concurrent request (each removes its listener when done).
            setMaxListeners(0, init.signal);
            raised.add(init.signal);
        }
        const res = await request(url, {
            method: method,
            headers: flatHeaders(init.headers),
            body: (init.body ?? undefined),
            signal: init.signal ?? undefined,
            dispatcher,
        });
        const headers = new Headers();
        for (const [name, value] of Object.entries(res.headers)) {
            if (Array.isArray(value))
                for (const v of value)
                    headers.append(name, v);
            else if (value !== undefined)
                headers.set(name, value);
        }
        if (NO_BODY.has(res.statusCode) || method === 'HEAD') {
            await res.body.dump();
            return new Response(null, { status: res.statusCode, headers });
        }
        if ((headers.get('content-type') ?? '').includes('text/event-stream')) {
            return new Response(Readable.toWeb(res.body), { status: res.statusCode, headers });
        }
        return new BufferedResponse(res.statusCode, headers, Buffer.from(await res.body.arrayBuffer()), String(url));
    };
}
/**
 * A whole (non-streamed) answer, with the part of the Response interface the SDK's client
 * transport reads (status, ok, headers, text, json, body?.cancel). Cheaper than building a web
 * Response around bytes that are already here.
 */
class BufferedResponse {
    status;
    headers;
    bytes;
    url;
    body = null;
    bodyUsed = false;
    redirected = false;
    type = 'basic';
    statusText = '';
    constructor(status, headers, bytes, url) {
        this.status = status;
        this.headers = headers;
        this.bytes = bytes;
        this.url = url;
    }
    get ok() {
        return this.status >= 200 && this.status < 300;
    }
    async text() {
        return this.bytes.toString('utf8');
    }
    async json() {
        return JSON.parse(this.bytes.toString('utf8'));
    }
    async arrayBuffer() {
        return this.bytes.buffer.slice(this.bytes.byteOffset, this.bytes.byteOffset + this.bytes.byteLength);
    }
}
//# sourceMappingURL=undici-fetch.js.map