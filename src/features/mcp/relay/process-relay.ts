import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Identity } from '../../../kernel/engine/context.js';
import { redactRelayed } from '../../../kernel/errors/redact.js';
import type { Logger } from '../../../kernel/observability/logger.js';
import type { AuditLog } from '../audit.js';
import { authorize } from '../authorization.js';
import { IDENTITY_META_KEY } from '../identity-forwarding.js';
import { RPC } from '../rpc-errors.js';
import { authInfoFor, ownerOf } from '../session-owner.js';
import type { ProcessServer } from '../upstream/process-server.js';
import { scopeOf, type RpcMessage } from './message-guard.js';

type Id = string | number;

interface ProcessSession {
  id: string;
  server: ProcessServer;
  owner: string;
  identity: Identity;
  downstream: StreamableHTTPServerTransport;
  child: Transport;
  /** Client requests the process has not answered yet, oldest first. */
  inflight: Id[];
  /** progressToken -> the request that carried it. */
  tokens: Map<unknown, Id>;
  lastSeen: number;
  active: number;
}

const PREFIX = 'p.';
const IDLE_MS = 30 * 60_000;

const isRequest = (m: RpcMessage) => typeof m.method === 'string' && m.id !== undefined && m.id !== null;
const isResponse = (m: RpcMessage) => m.method === undefined && m.id !== undefined && ('result' in m || 'error' in m);

function jsonAnswer(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/**
 * /mcp/<server> sessions of a process (stdio) tool server, relayed faithfully: a stdio server
 * serves one client, so each client session gets a process of its own (started at initialize,
 * ended with the session, at most `maxSessions` per server), and the messages of the two flow
 * through unchanged both ways: the server's requests (sampling, elicitation, roots), log,
 * progress and list-changed notifications, cancellation, subscriptions. Whatever the process
 * says in the course of a client request goes on that request's event stream (progress by its
 * token, the rest with the latest request in flight), so nothing arrives after the answer it
 * belongs before; the rest goes on the client's GET stream. Every request is authorized, and
 * carries the caller's identity in `params._meta["io.gateway/identity"]`.
 */
export class ProcessRelay {
  private readonly sessions = new Map<string, ProcessSession>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly audit: AuditLog,
    private readonly logger: Logger,
  ) {
    this.sweeper = setInterval(() => this.sweep(), 60_000);
    this.sweeper.unref();
  }

  static owns(sessionId: string): boolean {
    return sessionId.startsWith(PREFIX);
  }

  get size(): number {
    return this.sessions.size;
  }

  async handle(req: IncomingMessage, res: ServerResponse, identity: Identity, server: ProcessServer, body: unknown): Promise<void> {
    (req as IncomingMessage & { auth?: unknown }).auth = authInfoFor(identity);
    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId === 'string' && sessionId) {
      const session = this.sessions.get(sessionId);
      if (!session || session.owner !== ownerOf(identity) || session.server !== server) {
        jsonAnswer(res, 404, { jsonrpc: '2.0', id: null, error: { code: RPC.INVALID_REQUEST, message: 'No such session: open a new one with initialize.' } });
        return;
      }
      session.identity = identity;
      session.lastSeen = Date.now();
      session.active++;
      res.once('close', () => {
        session.active--;
        session.lastSeen = Date.now();
      });
      await session.downstream.handleRequest(req, res, body);
      return;
    }
    await this.open(req, res, identity, server, body);
  }

  private async open(req: IncomingMessage, res: ServerResponse, identity: Identity, server: ProcessServer, body: unknown): Promise<void> {
    const id = (body as RpcMessage | undefined)?.id ?? null;
    if (!authorize(identity, { action: 'list', server: server.name }).allowed) {
      jsonAnswer(res, 403, { jsonrpc: '2.0', id, error: { code: RPC.FORBIDDEN, message: `Forbidden: the credential may not use tool server ${server.name}.` } });
      return;
    }
    const max = server.linkCapacity;
    if (server.linkCount >= max) {
      jsonAnswer(res, 503, {
        jsonrpc: '2.0',
        id,
        error: { code: RPC.SERVER_UNAVAILABLE, message: `Tool server ${server.name} has no room for another session (maxSessions ${max}).` },
      });
      return;
    }
    const child = server.spawnSessionTransport();
    // The process counts against maxSessions until it ends.
    server.linkCount++;
    let counted = true;
    const release = () => {
      if (!counted) return;
      counted = false;
      server.linkCount--;
    };
    try {
      await child.start();
    } catch (err) {
      release();
      this.logger.warn({ mcpServer: server.name, err: server.redactText((err as Error).message) }, 'tool server session process did not start');
      jsonAnswer(res, 502, { jsonrpc: '2.0', id, error: { code: RPC.SERVER_UNAVAILABLE, message: `Tool server ${server.name} did not start.` } });
      return;
    }
    let session: ProcessSession | undefined;
    const downstream = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => PREFIX + randomUUID(),
      onsessioninitialized: (sid) => {
        session = { id: sid, server, owner: ownerOf(identity), identity, downstream, child, inflight: [], tokens: new Map(), lastSeen: Date.now(), active: 0 };
        this.sessions.set(sid, session);
        this.logger.debug({ sessionId: sid, mcpServer: server.name }, 'mcp relayed session opened');
      },
      onsessionclosed: (sid) => this.end(sid),
    });
    // Messages before the session exists (the initialize request) use the opening identity.
    const current = () => session ?? { identity, inflight: [] as Id[], tokens: new Map<unknown, Id>() };
    downstream.onmessage = (message) => this.fromClient(current(), server, downstream, child, message as RpcMessage);
    child.onmessage = (message) => this.fromServer(current(), server, downstream, message as RpcMessage);
    child.onclose = () => {
      release();
      if (session) this.end(session.id);
      else void downstream.close().catch(() => undefined);
    };
    child.onerror = (err) => this.logger.debug({ mcpServer: server.name, err: server.redactText(err.message) }, 'tool server session transport error');
    downstream.onclose = () => void child.close().catch(() => undefined);
    await downstream.start();
    await downstream.handleRequest(req, res, body);
    if (!session) {
      release();
      await child.close().catch(() => undefined);
      await downstream.close().catch(() => undefined);
    }
  }

  private fromClient(
    session: Pick<ProcessSession, 'identity' | 'inflight' | 'tokens'>,
    server: ProcessServer,
    downstream: StreamableHTTPServerTransport,
    child: Transport,
    message: RpcMessage,
  ): void {
    if (isRequest(message)) {
      const scope = scopeOf(message, server.name);
      const decision = authorize(session.identity, scope);
      if (!decision.allowed) {
        this.audit.record(session.identity, {
          method: String(message.method),
          server: server.name,
          name: scope.tool,
          allowed: false,
          reason: decision.reason,
          outcome: 'denied',
          ms: 0,
        });
        const error = { jsonrpc: '2.0' as const, id: message.id as Id, error: { code: RPC.FORBIDDEN, message: `Forbidden: ${decision.reason}.` } };
        void downstream.send(error).catch(() => undefined);
        return;
      }
      session.inflight.push(message.id as Id);
      const meta = (message.params?._meta ?? {}) as Record<string, unknown>;
      if (meta.progressToken !== undefined) session.tokens.set(meta.progressToken, message.id as Id);
      const forwarded = server.identityFor(session.identity);
      const cleanMeta = { ...meta };
      delete cleanMeta[IDENTITY_META_KEY];
      if (forwarded) cleanMeta[IDENTITY_META_KEY] = forwarded;
      if (message.method !== 'initialize' && (forwarded || IDENTITY_META_KEY in meta)) message = { ...message, params: { ...(message.params ?? {}), _meta: cleanMeta } };
    }
    void child.send(message as JSONRPCMessage).catch((err: Error) => this.logger.debug({ mcpServer: server.name, err: err.message }, 'tool server session write failed'));
  }

  private fromServer(session: Pick<ProcessSession, 'inflight' | 'tokens'>, server: ProcessServer, downstream: StreamableHTTPServerTransport, message: RpcMessage): void {
    const out = (server.secrets.length ? redactRelayed(message, server.secrets) : message) as JSONRPCMessage;
    let related: Id | undefined;
    if (isResponse(message)) {
      const i = session.inflight.indexOf(message.id as Id);
      if (i >= 0) session.inflight.splice(i, 1);
      for (const [token, rid] of session.tokens) if (rid === message.id) session.tokens.delete(token);
    } else if (message.method === 'notifications/progress') {
      related = session.tokens.get(message.params?.progressToken) ?? session.inflight.at(-1);
    } else {
      related = session.inflight.at(-1);
    }
    const send = related === undefined ? downstream.send(out) : downstream.send(out, { relatedRequestId: related }).catch(() => downstream.send(out));
    void send.catch((err: Error) => this.logger.debug({ mcpServer: server.name, err: err.message }, 'relayed message had nowhere to go'));
  }

  private end(sessionId: string): void {
    const session = this.sessions.get(sessionId);
    if (!session) return;
    this.sessions.delete(sessionId);
    void session.child.close().catch(() => undefined);
    void session.downstream.close().catch(() => undefined);
  }

  private sweep(): void {
    const cutoff = Date.now() - IDLE_MS;
    for (const s of [...this.sessions.values()]) if (s.active === 0 && s.lastSeen < cutoff) this.end(s.id);
  }

  /** Ends every session's GET stream so that shutdown does not wait for it. */
  drain(): void {
    for (const s of this.sessions.values()) s.downstream.closeStandaloneSSEStream();
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    for (const id of [...this.sessions.keys()]) this.end(id);
  }
}
