import { AsyncLocalStorage } from 'node:async_hooks';
import { Agent } from 'undici';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { identityHeaders } from '../identity-forwarding.js';
import { undiciFetch } from './undici-fetch.js';
import { UpstreamServer } from './upstream-server.js';
const NETWORK_FAILURES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH']);
/**
 * A remote Streamable HTTP tool server: one shared MCP session opened by the gateway with the
 * configured `headers` (its credentials). The caller's identity goes on each HTTP request of a
 * call as X-User-* headers (and the signature): the SDK transport takes a custom fetch, and the
 * headers of the call in progress reach it through AsyncLocalStorage, so concurrent callers on
 * the shared session each send their own. Nothing of the caller's request (credential, headers)
 * is ever copied.
 */
export class RemoteServer extends UpstreamServer {
    forwarding;
    kind = 'remote';
    secrets;
    callHeaders = new AsyncLocalStorage();
    fetch;
    agent = new Agent({ keepAliveTimeout: 30_000, connections: 64 });
    constructor(name, config, logger, forwarding) {
        super(name, config, logger);
        this.forwarding = forwarding;
        this.secrets = Object.values(config.headers ?? {});
        const configured = Object.entries(config.headers ?? {});
        const send = undiciFetch(this.agent);
        this.fetch = (url, init) => {
            const headers = new Headers(init?.headers);
            for (const [k, v] of configured)
                headers.set(k, v);
            // The caller's identity (computed by the gateway) wins over a configured header of the same name.
            const identity = this.callHeaders.getStore();
            if (identity)
                for (const [k, v] of Object.entries(identity))
                    headers.set(k, v);
            return send(url, { ...init, headers });
        };
    }
    createTransport() {
        return new StreamableHTTPClientTransport(new URL(this.config.url), { fetch: this.fetch, reconnectionOptions: { initialReconnectionDelay: 1000, maxReconnectionDelay: 30_000, reconnectionDelayGrowFactor: 2, maxRetries: 5 } });
    }
    identityMeta() {
        return undefined;
    }
    withIdentity(identity, fn) {
        const headers = identityHeaders(identity, this.forwarding);
        return this.callHeaders.run(headers, fn);
    }
    async close() {
        await super.close();
        await this.agent.close().catch(() => undefined);
    }
    isSessionLost(err) {
        return err instanceof StreamableHTTPError && err.code === 404;
    }
    isConnectionFailure(err) {
        // The server forgot our session (404) or cannot be reached at all: open a new session.
        if (err instanceof StreamableHTTPError)
            return err.code === 404;
        const code = String(err?.code ?? '');
        return NETWORK_FAILURES.has(code) || (code.startsWith('UND_ERR') && code !== 'UND_ERR_ABORTED');
    }
}
//# sourceMappingURL=remote-server.js.map