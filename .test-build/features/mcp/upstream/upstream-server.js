import { EventEmitter } from 'node:events';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { PromptListChangedNotificationSchema, ResourceListChangedNotificationSchema, ResultSchema, ToolListChangedNotificationSchema, } from '@modelcontextprotocol/sdk/types.js';
import { RpcFailure, RPC, upstreamFailure } from '../rpc-errors.js';
import { redactRelayed, redactSecrets } from '../../../kernel/errors/redact.js';
import { IDENTITY_META_KEY } from '../identity-forwarding.js';
export const GATEWAY_VERSION = '0.1.0';
const DEFAULT_TIMEOUT_MS = 60_000;
const BACKOFF_FIRST_MS = 500;
const BACKOFF_MAX_MS = 30_000;
/** Up this long, a server's restart count starts again from the first delay. */
const STABLE_AFTER_MS = 60_000;
/**
 * A tool server the gateway connects to once and shares between callers (an SDK Client over a
 * transport). Subclasses make the transport; this class connects, reconnects with backoff
 * when the connection ends, relays list-changed notifications ('list_changed' events) and
 * sends requests for callers. Events: 'list_changed' (kind), 'status' (status).
 */
export class UpstreamServer extends EventEmitter {
    name;
    config;
    logger;
    status = 'starting';
    client;
    attempts = 0;
    connectedAt = 0;
    retryTimer;
    connecting;
    stopping = false;
    timeoutMs;
    constructor(name, config, logger) {
        super();
        this.name = name;
        this.config = config;
        this.logger = logger;
        this.timeoutMs = config.timeout ?? DEFAULT_TIMEOUT_MS;
    }
    get capabilities() {
        return this.status === 'ready' ? this.client?.getServerCapabilities() : undefined;
    }
    get instructions() {
        return this.client?.getInstructions();
    }
    /** First connection; resolves once it succeeded or failed (a failure is retried in the background). */
    start() {
        return this.connect();
    }
    connect() {
        if (this.connecting)
            return this.connecting;
        this.connecting = this.open().finally(() => {
            this.connecting = undefined;
        });
        return this.connecting;
    }
    async open() {
        if (this.stopping)
            return;
        const client = new Client({ name: 'ai-gateway', version: GATEWAY_VERSION }, { capabilities: {} });
        for (const [schema, kind] of [
            [ToolListChangedNotificationSchema, 'tools'],
            [PromptListChangedNotificationSchema, 'prompts'],
            [ResourceListChangedNotificationSchema, 'resources'],
        ]) {
            client.setNotificationHandler(schema, () => {
                if (this.client === client)
                    this.emit('list_changed', kind);
            });
        }
        client.onerror = (err) => this.logger.debug({ mcpServer: this.name, err: this.redact(err.message) }, 'tool server transport error');
        client.onclose = () => this.closed(client);
        try {
            await client.connect(this.createTransport(), { timeout: Math.min(this.timeoutMs, 30_000) });
        }
        catch (err) {
            void client.close().catch(() => undefined);
            if (this.stopping)
                return;
            this.logger.warn({ mcpServer: this.name, err: this.redact(err.message) }, 'tool server did not start');
            this.setStatus('down');
            this.scheduleRetry();
            return;
        }
        if (this.stopping) {
            await client.close().catch(() => undefined);
            return;
        }
        this.client = client;
        this.connectedAt = Date.now();
        this.setStatus('ready');
        this.logger.info({ mcpServer: this.name, kind: this.kind }, 'tool server connected');
        for (const kind of ['tools', 'prompts', 'resources'])
            this.emit('list_changed', kind);
    }
    closed(client) {
        if (this.client !== client)
            return;
        this.client = undefined;
        if (this.stopping)
            return;
        this.logger.warn({ mcpServer: this.name }, 'tool server connection ended; restarting');
        this.setStatus('down');
        for (const kind of ['tools', 'prompts', 'resources'])
            this.emit('list_changed', kind);
        this.scheduleRetry();
    }
    /** Marks the connection broken (a network failure on a call) and reconnects. */
    broken() {
        const client = this.client;
        if (!client)
            return;
        void client.close().catch(() => undefined);
        this.closed(client);
    }
    scheduleRetry() {
        if (this.stopping || this.retryTimer)
            return;
        if (this.connectedAt && Date.now() - this.connectedAt > STABLE_AFTER_MS)
            this.attempts = 0;
        const delay = Math.min(BACKOFF_MAX_MS, BACKOFF_FIRST_MS * 2 ** this.attempts);
        this.attempts++;
        this.retryTimer = setTimeout(() => {
            this.retryTimer = undefined;
            void this.connect();
        }, delay);
        this.retryTimer.unref();
    }
    setStatus(status) {
        if (this.status === status)
            return;
        this.status = status;
        this.emit('status', status);
    }
    /** Text from or about the tool server, with its credentials (and the gateway's) masked. */
    redact(text) {
        return redactSecrets(text, this.secrets);
    }
    /**
     * Sends one request for a caller: the caller's `_meta` kept (without gateway-reserved keys),
     * the identity attached (process: `_meta["io.gateway/identity"]`; remote: headers).
     */
    async request(method, params, ctx, retried = false) {
        const client = this.client;
        if (this.status !== 'ready' || !client) {
            throw new RpcFailure(RPC.SERVER_UNAVAILABLE, `Tool server ${this.name} is unavailable (${this.status === 'stopped' ? 'stopped' : this.status === 'starting' ? 'starting' : 'restarting'}).`);
        }
        const meta = { ...(ctx.meta ?? {}) };
        delete meta[IDENTITY_META_KEY];
        delete meta.progressToken;
        const identity = this.identityMeta(ctx.identity);
        if (identity)
            meta[IDENTITY_META_KEY] = identity;
        const outParams = { ...(params ?? {}) };
        if (Object.keys(meta).length)
            outParams._meta = meta;
        else
            delete outParams._meta;
        const onprogress = ctx.onprogress;
        try {
            const result = (await this.withIdentity(ctx.identity, () => client.request({ method, params: outParams }, ResultSchema, {
                signal: ctx.signal,
                timeout: this.timeoutMs,
                onprogress: onprogress && ((progress) => onprogress(redactRelayed(progress, this.secrets))),
                resetTimeoutOnProgress: onprogress !== undefined,
            })));
            // A tool server may echo what it was configured with (an Authorization header, an env value).
            return redactRelayed(result, this.secrets);
        }
        catch (err) {
            if (!retried && this.isSessionLost(err)) {
                // The server forgot our session (it restarted): open a new one now and try once more.
                await this.reopen(client);
                return this.request(method, params, ctx, true);
            }
            if (this.isConnectionFailure(err))
                this.broken();
            throw upstreamFailure(this.name, err, this.secrets);
        }
    }
    /** Replaces a connection whose session the server no longer knows, without waiting for backoff. */
    async reopen(client) {
        // Another request may have reopened it already (or be doing so: connect() is shared).
        if (this.client && this.client !== client)
            return;
        if (this.client === client) {
            this.client = undefined;
            this.setStatus('down');
            void client.close().catch(() => undefined);
        }
        if (this.retryTimer) {
            clearTimeout(this.retryTimer);
            this.retryTimer = undefined;
        }
        await this.connect();
    }
    /** Whether a request failure means the connection is gone (subclasses know their transport). */
    isConnectionFailure(_err) {
        return false;
    }
    /** Whether the server no longer knows this connection's session (worth one immediate retry). */
    isSessionLost(_err) {
        return false;
    }
    async close() {
        this.stopping = true;
        if (this.retryTimer)
            clearTimeout(this.retryTimer);
        this.retryTimer = undefined;
        await this.connecting?.catch(() => undefined);
        const client = this.client;
        this.client = undefined;
        this.setStatus('stopped');
        await client?.close().catch(() => undefined);
    }
}
//# sourceMappingURL=upstream-server.js.map