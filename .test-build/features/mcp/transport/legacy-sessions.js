import { randomUUID } from 'node:crypto';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { badRequest, notFound } from '../../../contract/errors/gateway-error.js';
import { authInfoFor, createGatewayMcpServer } from './gateway-mcp-server.js';
const IDLE_MS = 30 * 60_000;
const MAX_SESSIONS = 10_000;
export const ownerOf = (identity) => `${identity.kind}:${identity.id}`;
function hasProgressToken(body) {
    const messages = Array.isArray(body) ? body : [body];
    return messages.some((m) => m?.params?._meta?.progressToken !== undefined);
}
/**
 * Streamable HTTP for the handshake-era revisions (2025-03-26 .. 2025-11-25), through the SDK:
 * an `initialize` POST opens a session (Mcp-Session-Id) bound to the credential that opened it
 * and to the endpoint; POST, GET (the server stream) and DELETE then need the same caller on the
 * same endpoint, else 404. A POST without a session id that is not `initialize` is served
 * statelessly (a fresh transport and server for that request), for clients that keep no session.
 */
export class LegacySessions {
    aggregator;
    logger;
    sessions = new Map();
    sweeper;
    constructor(aggregator, logger) {
        this.aggregator = aggregator;
        this.logger = logger;
        this.sweeper = setInterval(() => this.sweep(), 60_000);
        this.sweeper.unref();
    }
    get size() {
        return this.sessions.size;
    }
    async handle(req, res, identity, pinned, body) {
        const sessionId = req.headers['mcp-session-id'];
        req.auth = authInfoFor(identity);
        if (typeof sessionId === 'string' && sessionId) {
            const session = this.sessions.get(sessionId);
            // Another caller's session, or one opened on another endpoint, does not exist for this caller.
            if (!session || session.owner !== ownerOf(identity) || session.pinned !== pinned) {
                throw notFound('No such session: open a new one with initialize.', 'Mcp-Session-Id');
            }
            session.identity = identity;
            session.lastSeen = Date.now();
            session.active++;
            res.once('close', () => {
                session.active--;
                session.lastSeen = Date.now();
            });
            await session.transport.handleRequest(req, res, body);
            return;
        }
        if (req.method !== 'POST') {
            throw badRequest('An Mcp-Session-Id header is required for GET and DELETE (open a session with initialize).', 'Mcp-Session-Id');
        }
        if (isInitializeRequest(body))
            await this.open(req, res, identity, pinned, body);
        else
            await this.stateless(req, res, pinned, body);
    }
    async open(req, res, identity, pinned, body) {
        if (this.sessions.size >= MAX_SESSIONS)
            this.evictOldest();
        const server = createGatewayMcpServer(this.aggregator, pinned);
        let session;
        const transport = new StreamableHTTPServerTransport({
            sessionIdGenerator: () => randomUUID(),
            onsessioninitialized: (id) => {
                session = { id, transport, server, owner: ownerOf(identity), pinned, identity, lastSeen: Date.now(), active: 0 };
                this.sessions.set(id, session);
            },
            onsessionclosed: (id) => {
                this.sessions.delete(id);
            },
        });
        transport.onclose = () => {
            if (transport.sessionId)
                this.sessions.delete(transport.sessionId);
        };
        await server.connect(transport);
        await transport.handleRequest(req, res, body);
        if (!session)
            await server.close().catch(() => undefined);
        else
            this.logger.debug({ sessionId: session.id, owner: session.owner }, 'mcp session opened');
    }
    async stateless(req, res, pinned, body) {
        const server = createGatewayMcpServer(this.aggregator, pinned);
        const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: !hasProgressToken(body) });
        res.once('close', () => {
            void transport.close().catch(() => undefined);
            void server.close().catch(() => undefined);
        });
        await server.connect(transport);
        await transport.handleRequest(req, res, body);
    }
    /** Tells every session that may see `server` that its tools, prompts or resources changed. */
    notifyListChanged(server, kind) {
        for (const session of this.sessions.values()) {
            if (session.pinned && session.pinned !== server)
                continue;
            if (!this.aggregator.maySee(session.identity, server))
                continue;
            const send = kind === 'tools' ? session.server.sendToolListChanged() : kind === 'prompts' ? session.server.sendPromptListChanged() : session.server.sendResourceListChanged();
            void send.catch(() => undefined);
        }
    }
    sweep() {
        const cutoff = Date.now() - IDLE_MS;
        for (const session of [...this.sessions.values()]) {
            if (session.active === 0 && session.lastSeen < cutoff)
                this.drop(session);
        }
    }
    evictOldest() {
        let oldest;
        for (const s of this.sessions.values())
            if (!oldest || s.lastSeen < oldest.lastSeen)
                oldest = s;
        if (oldest)
            this.drop(oldest);
    }
    drop(session) {
        this.sessions.delete(session.id);
        void session.transport.close().catch(() => undefined);
        void session.server.close().catch(() => undefined);
    }
    /** Ends every session's server stream (GET), so that shutdown does not wait for them; calls in flight go on. */
    drain() {
        for (const session of this.sessions.values())
            session.transport.closeStandaloneSSEStream();
    }
    async close() {
        clearInterval(this.sweeper);
        await Promise.all([...this.sessions.values()].map((s) => Promise.all([s.transport.close().catch(() => undefined), s.server.close().catch(() => undefined)])));
        this.sessions.clear();
    }
}
//# sourceMappingURL=legacy-sessions.js.map