import { GatewayError } from '../../../contract/errors/gateway-error.js';
/**
 * The precise timers of one upstream attempt. undici's own headersTimeout / bodyTimeout run on
 * coarse timers (up to about a second late), so first_byte_timeout and idle_timeout are kept
 * here with native timers and enforced through the attempt's abort signal; undici's values
 * stay set as a backstop.
 *
 * - first byte: from sending until the response headers (or, for a stream, its first part)
 * - idle: between two body chunks of a stream
 *
 * Either one firing aborts the request with a retryable 504 request_timeout.
 */
export class AttemptTimers {
    provider;
    idleMs;
    controller;
    firstByte;
    idle;
    /** Whether any timer is set (without one, the attempt needs neither its signal nor `watch`). */
    active;
    constructor(provider, firstByteMs, idleMs) {
        this.provider = provider;
        this.idleMs = idleMs;
        this.active = firstByteMs !== undefined || idleMs !== undefined;
        if (firstByteMs !== undefined) {
            this.firstByte = setTimeout(() => this.fire(`${provider} sent nothing within first_byte_timeout (${firstByteMs} ms).`), firstByteMs);
        }
    }
    get signal() {
        this.controller ??= new AbortController();
        return this.controller.signal;
    }
    fire(message) {
        this.clear();
        this.controller ??= new AbortController();
        this.controller.abort(new GatewayError('request_timeout', message, { provider: this.provider, retryable: true }));
    }
    /** The first byte (headers, or a stream's first part) arrived. */
    firstByteArrived() {
        clearTimeout(this.firstByte);
        this.firstByte = undefined;
    }
    clear() {
        clearTimeout(this.firstByte);
        clearTimeout(this.idle);
        this.firstByte = undefined;
        this.idle = undefined;
    }
    /**
     * Passes a stream's body through. From its first chunk on, the idle timer runs while the next
     * chunk is awaited from the upstream (the wait for the first one is first_byte_timeout's);
     * time the caller takes to read (backpressure) does not count. The timers end with the body.
     */
    async *watch(body) {
        const idleMs = this.idleMs;
        try {
            for await (const chunk of body) {
                clearTimeout(this.idle);
                yield chunk;
                if (idleMs !== undefined)
                    this.idle = setTimeout(() => this.fire(`${this.provider} sent nothing for idle_timeout (${idleMs} ms).`), idleMs);
            }
        }
        finally {
            this.clear();
        }
    }
}
//# sourceMappingURL=attempt-timers.js.map