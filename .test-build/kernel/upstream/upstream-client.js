import { Agent, request } from 'undici';
/**
 * Upstream HTTP through undici's request API on keep-alive pools (one pool per origin, made
 * by the Agent). No fetch, no web streams: bodies are node streams.
 */
export class UpstreamClient {
    agent;
    /**
     * `headersTimeout` / `bodyTimeout` are the deadlines of every request that sets none of its
     * own (routing.defaults: first_byte_timeout 120 s, idle_timeout 60 s), kept by undici's own
     * timers at no cost per request.
     */
    constructor(options = {}) {
        this.agent = new Agent({
            connections: options.connections ?? 256,
            keepAliveTimeout: options.keepAliveTimeout ?? 30_000,
            keepAliveMaxTimeout: 600_000,
            headersTimeout: options.headersTimeout ?? 120_000,
            bodyTimeout: options.bodyTimeout ?? 60_000,
            pipelining: 1,
        });
    }
    send(upstream, options = {}) {
        return request(upstream.url, {
            dispatcher: this.agent,
            method: upstream.method,
            headers: upstream.headers,
            body: upstream.body ?? null,
            signal: options.signal,
            headersTimeout: options.headersTimeout,
            bodyTimeout: options.bodyTimeout,
        });
    }
    close() {
        return this.agent.close();
    }
}
//# sourceMappingURL=upstream-client.js.map