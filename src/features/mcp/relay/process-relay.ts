import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { SUPPORTED_PROTOCOL_VERSIONS, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Identity } from '../../../kernel/engine/context.js';
import { redactRelayed } from '../../../kernel/errors/redact.js';
import type { Logger } from '../../../kernel/observability/logger.js';
import type { AccessStep } from '../dispatch/access-step.js';
import { scopeOf, targetName } from '../dispatch/method-table.js';
import { IDENTITY_META_KEY } from '../../auth/index.js';
import { RPC } from '../rpc-errors.js';
import { authInfoFor, ownerOf } from '../session-owner.js';
import type { ProcessServer } from '../upstream/process-server.js';
import { pinnedInstructions, type RpcMessage } from './message-guard.js';
import { CallDeadlines, CLIENT_ANSWER_MS } from './call-deadlines.js';
import { answerNoSession, noSuchSession } from './no-session.js';
import type { BusMessage, SessionBus } from './session-bus.js';
import type { SessionSeal } from './session-seal.js';
import { runAnswerSteps, wantsAnswer, type AnswerSteps } from '../dispatch/answer-steps.js';
import { answerStepsOf } from '../session-owner.js';

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
  /** Client requests that came through another instance: their id -> where what belongs to them goes. */
  remote: Map<Id, Elsewhere>;
  /** The server stream (GET) when another instance holds it. */
  stream?: Elsewhere;
  /** The call timeout of the requests whose client's HTTP request is held here (the others: where it is held). */
  deadlines: CallDeadlines;
  /** tools/call requests not answered yet: their tool and start (audited and counted when answered). */
  toolCalls?: Map<Id, { name: string; started: number }>;
  /** tools/list and prompts/list requests not answered yet whose answer the access step screens. */
  toolLists?: Set<Id>;
  /** Requests not answered yet whose HTTP request came with answer steps: the steps their answer goes through. */
  answerSteps?: Map<Id, AnswerSteps>;
  /** What the process says waits here while an answer before it is with its steps (the order holds). */
  outbox?: OutBox;
}

/** Messages on their way to the client, in order, while an answer among them is with its answer steps. */
interface OutBox {
  queue: Promise<void>;
  busy: number;
}

/** What a session relays, from the client and from its process (the session, or what stands for it before initialize). */
type Relayed = Pick<ProcessSession, 'identity' | 'inflight' | 'tokens' | 'remote' | 'stream' | 'toolCalls' | 'toolLists' | 'answerSteps' | 'outbox'> & {
  deadlines?: CallDeadlines;
};

/** A client's HTTP request held by another instance: its bus address and the request's relay id. */
interface Elsewhere {
  to: string;
  rid: string;
}

/** A client's request for a session another instance runs, waiting here for what comes back. */
interface Forwarded {
  op: 'post' | 'get' | 'delete';
  res: ServerResponse;
  sid: string;
  /** Ids of the POST's requests not answered yet (the event stream ends with the last answer). */
  waiting: Set<Id>;
  acked: boolean;
  timer: NodeJS.Timeout;
  owner: string;
  /** The tool server's name (for the timeout error). */
  server: string;
  /** The tool server's call timeout (mcpServers.<name>.timeout), for the POST's requests once the owner took them. */
  callMs: number;
  /** Runs while the POST's requests wait for their answers: no word from the owner for that long, and they fail. */
  callTimer?: NodeJS.Timeout;
  /** The tool server asked the client something in their course (its answer is not seen here: CLIENT_ANSWER_MS from then on). */
  asked?: boolean;
  /** The answer steps of the client's HTTP request (applied here, where that request is held). */
  steps?: AnswerSteps;
  /** What comes back waits here while an answer before it is with its steps. */
  outbox?: OutBox;
}

const PREFIX = 'p.';
const IDLE_MS = 30 * 60_000;
/** How long an instance waits for the session's own instance to take a request; without an answer it is gone (404). */
const ACK_MS = 3000;
const SEALED_PREFIX = 'r.';
/** While requests are held for another instance's sessions, that instance is asked this often whether it is there. */
const PING_MS = 2000;
/** ...and taken for gone (its sessions' held requests answered with an error) when it has not answered for this long. */
const GONE_MS = 6000;

const isRequest = (m: RpcMessage) => typeof m.method === 'string' && m.id !== undefined && m.id !== null;
const isResponse = (m: RpcMessage) => m.method === undefined && m.id !== undefined && ('result' in m || 'error' in m);

function jsonAnswer(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent || res.destroyed) return void res.end();
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

const isMessage = (m: unknown): m is RpcMessage => typeof m === 'object' && m !== null && !Array.isArray(m) && (m as RpcMessage).jsonrpc === '2.0';

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
 *
 * Sessions on any instance: a session's id carries (sealed) the bus address of the instance
 * running its process. A request for it that comes to another instance is passed to that one
 * over the session bus (Redis or PostgreSQL), and what the process says back (answers, progress,
 * log messages, its requests to the client; the server stream) comes back the same way and is
 * written to the client as if it were served here. No answer from that instance: it is gone,
 * and so is the session (404; the client opens a new one).
 */
export class ProcessRelay {
  private readonly sessions = new Map<string, ProcessSession>();
  /** Requests held here for sessions another instance runs, by relay id. */
  private readonly forwarded = new Map<string, Forwarded>();
  /** Instances asked whether they are there: bus address -> the question's id and when it was asked. */
  private readonly probes = new Map<string, { rid: string; at: number }>();
  private readonly sweeper: NodeJS.Timeout;
  private readonly pinger?: NodeJS.Timeout;
  /** Shutting down: requests from other instances are no longer taken. */
  private draining = false;

  constructor(
    private readonly access: AccessStep,
    private readonly logger: Logger,
    private readonly seal?: SessionSeal,
    private readonly bus?: SessionBus,
  ) {
    this.sweeper = setInterval(() => this.sweep(), 60_000);
    this.sweeper.unref();
    if (bus) {
      bus.onProcess = (message) => this.fromBus(message);
      this.pinger = setInterval(() => this.ping(), PING_MS);
      this.pinger.unref();
    }
  }

  static owns(sessionId: string): boolean {
    return sessionId.startsWith(PREFIX);
  }

  get size(): number {
    return this.sessions.size;
  }

  /** `steps`: the answer steps of this HTTP request (applied to the answers of its requests before they are written). */
  async handle(req: IncomingMessage, res: ServerResponse, identity: Identity, server: ProcessServer, body: unknown, steps?: AnswerSteps): Promise<void> {
    (req as IncomingMessage & { auth?: unknown }).auth = authInfoFor(identity, steps);
    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId === 'string' && sessionId) {
      const session = this.sessions.get(sessionId);
      if (!session) return this.forward(req, res, identity, server, body, sessionId, steps);
      if (session.owner !== ownerOf(identity) || session.server !== server) throw noSuchSession();
      // The client's server stream is here now.
      if (req.method === 'GET') session.stream = undefined;
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
    if (!this.access.maySee(identity, server.name)) {
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
      sessionIdGenerator: () => this.newId(server, identity),
      onsessioninitialized: (sid) => {
        session = {
          id: sid,
          server,
          owner: ownerOf(identity),
          identity,
          downstream,
          child,
          inflight: [],
          tokens: new Map(),
          lastSeen: Date.now(),
          active: 0,
          remote: new Map(),
          deadlines: new CallDeadlines(server.timeoutMs, (rid) => this.callTimedOut(sid, rid)),
        };
        this.sessions.set(sid, session);
        this.logger.debug({ sessionId: sid, mcpServer: server.name }, 'mcp relayed session opened');
      },
      onsessionclosed: (sid) => this.end(sid),
    });
    // Messages before the session exists (the initialize request) use the opening identity.
    const current = () => session ?? { identity, inflight: [] as Id[], tokens: new Map<unknown, Id>(), remote: new Map<Id, Elsewhere>() };
    // The session's initialize request: the instructions of its answer are held against the server's pin.
    let initialize: Id | undefined;
    downstream.onmessage = (message, extra) => {
      if ((message as RpcMessage).method === 'initialize' && isRequest(message as RpcMessage)) initialize = (message as RpcMessage).id as Id;
      this.fromClient(current(), server, downstream, child, message as RpcMessage, answerStepsOf(extra?.authInfo));
    };
    child.onmessage = (message) => {
      let m = message as RpcMessage;
      if (initialize !== undefined && isResponse(m) && m.id === initialize) {
        initialize = undefined;
        m = pinnedInstructions(this.access, current().identity, server, m);
      }
      this.fromServer(current(), server, downstream, m);
    };
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

  private fromClient(session: Relayed, server: ProcessServer, downstream: StreamableHTTPServerTransport, child: Transport, message: RpcMessage, steps?: AnswerSteps): void {
    if (isRequest(message)) {
      const scope = scopeOf(message, server.name);
      const refusal = this.access.admit(session.identity, String(message.method), scope, targetName(message));
      if (refusal) {
        const error = {
          jsonrpc: '2.0' as const,
          id: message.id as Id,
          error: { code: refusal.code, message: refusal.message, ...(refusal.data === undefined ? {} : { data: refusal.data }) },
        };
        const elsewhere = session.remote.get(message.id as Id);
        session.remote.delete(message.id as Id);
        if (elsewhere) this.sendTo(elsewhere, 'out', [error]);
        else void downstream.send(error).catch(() => undefined);
        return;
      }
      session.inflight.push(message.id as Id);
      if (steps) (session.answerSteps ??= new Map()).set(message.id as Id, steps);
      if (message.method === 'tools/call') (session.toolCalls ??= new Map()).set(message.id as Id, { name: String(message.params?.name ?? ''), started: performance.now() });
      else if ((message.method === 'tools/list' || message.method === 'prompts/list') && this.access.screensLists(session.identity, server.name))
        (session.toolLists ??= new Set()).add(message.id as Id);
      // The call timeout runs where the client's HTTP request is held (for one held by another instance, there).
      if (message.method !== 'initialize' && !session.remote.has(message.id as Id)) session.deadlines?.start(message.id as Id);
      const meta = (message.params?._meta ?? {}) as Record<string, unknown>;
      if (meta.progressToken !== undefined) session.tokens.set(meta.progressToken, message.id as Id);
      const forwarded = server.identityFor(session.identity);
      const cleanMeta = { ...meta };
      delete cleanMeta[IDENTITY_META_KEY];
      if (forwarded) cleanMeta[IDENTITY_META_KEY] = forwarded;
      if (message.method !== 'initialize' && (forwarded || IDENTITY_META_KEY in meta)) message = { ...message, params: { ...(message.params ?? {}), _meta: cleanMeta } };
    } else if (message.method === 'notifications/cancelled') {
      // A request the client gave up: nothing more belongs to it (the server may not answer it at all).
      const cancelled = message.params?.requestId as Id | undefined;
      const i = cancelled === undefined ? -1 : session.inflight.indexOf(cancelled);
      if (i >= 0) session.inflight.splice(i, 1);
      for (const [token, rid] of session.tokens) if (rid === cancelled) session.tokens.delete(token);
      if (cancelled !== undefined) {
        session.remote.delete(cancelled);
        session.toolCalls?.delete(cancelled);
        session.toolLists?.delete(cancelled);
        session.answerSteps?.delete(cancelled);
        session.deadlines?.done(cancelled);
      }
    }
    void child.send(message as JSONRPCMessage).catch((err: Error) => this.logger.debug({ mcpServer: server.name, err: err.message }, 'tool server session write failed'));
  }

  private fromServer(session: Relayed, server: ProcessServer, downstream: StreamableHTTPServerTransport, message: RpcMessage): void {
    let out = (server.secrets.length ? redactRelayed(message, server.secrets) : message) as JSONRPCMessage;
    let related: Id | undefined;
    let steps: AnswerSteps | undefined;
    if (isResponse(message)) {
      const i = session.inflight.indexOf(message.id as Id);
      if (i >= 0) session.inflight.splice(i, 1);
      for (const [token, rid] of session.tokens) if (rid === message.id) session.tokens.delete(token);
      session.deadlines?.done(message.id as Id);
      const call = session.toolCalls?.get(message.id as Id);
      if (call) {
        session.toolCalls!.delete(message.id as Id);
        const failed = message.error !== undefined;
        const toolError = !failed && (message.result as { isError?: unknown } | undefined)?.isError === true;
        this.access.ended(session.identity, 'tools/call', server.name, call.name, failed ? 'error' : toolError ? 'tool_error' : 'ok', call.started);
      }
      if (session.toolLists?.delete(message.id as Id)) out = this.screened(session.identity, server, out);
      steps = session.answerSteps?.get(message.id as Id);
      if (steps) session.answerSteps!.delete(message.id as Id);
      // The answer to a request that came through another instance goes back there.
      const elsewhere = session.remote.get(message.id as Id);
      if (elsewhere) {
        session.remote.delete(message.id as Id);
        return this.sendTo(elsewhere, 'out', [out as Record<string, unknown>]);
      }
    } else if (message.method === 'notifications/progress') {
      related = session.tokens.get(message.params?.progressToken) ?? session.inflight.at(-1);
    } else {
      related = session.inflight.at(-1);
    }
    // What the server says in a request's course restarts its wait (a question to the client: 10 minutes at least).
    if (related !== undefined) {
      if (isRequest(message)) session.deadlines?.asked(related);
      else session.deadlines?.activity(related);
    }
    const elsewhere = related === undefined ? session.stream : session.remote.get(related);
    if (elsewhere) return this.sendTo(elsewhere, 'out', [out as Record<string, unknown>]);
    const deliver = (sent: JSONRPCMessage) => {
      const send = related === undefined ? downstream.send(sent) : downstream.send(sent, { relatedRequestId: related }).catch(() => downstream.send(sent));
      void send.catch((err: Error) => this.logger.debug({ mcpServer: server.name, err: err.message }, 'relayed message had nowhere to go'));
    };
    const wanted = steps !== undefined && wantsAnswer(steps, out as Record<string, unknown>);
    if (!wanted && !session.outbox?.busy) return deliver(out);
    const answer = out;
    this.later((session.outbox ??= { queue: Promise.resolve(), busy: 0 }), server.name, async () => {
      deliver(wanted ? (((await runAnswerSteps(steps, answer as Record<string, unknown>)) ?? answer) as JSONRPCMessage) : answer);
    });
  }

  /** Work on the way to the client that waits for the answers before it to leave their steps. */
  private later(box: OutBox, server: string, work: () => Promise<void>): void {
    box.busy++;
    box.queue = box.queue
      .then(work)
      .catch((err: Error) => this.logger.error({ mcpServer: server, err: err.message }, 'a relayed answer could not be checked'))
      .finally(() => box.busy--);
  }

  /** A list answer with only the tools or prompts the caller may see (the access step decides). */
  private screened(identity: Identity, server: ProcessServer, message: JSONRPCMessage): JSONRPCMessage {
    const result = (message as { result?: Record<string, unknown> }).result;
    if (!result || typeof result !== 'object') return message;
    const screened = this.access.screenListResult(identity, server.name, result);
    return screened === result ? message : ({ ...message, result: screened } as JSONRPCMessage);
  }

  private end(sessionId: string): void {
    const session = this.sessions.get(sessionId);
    if (!session) return;
    this.sessions.delete(sessionId);
    session.deadlines.clear();
    this.releaseElsewhere(session);
    void session.child.close().catch(() => undefined);
    void session.downstream.close().catch(() => undefined);
  }

  private sweep(): void {
    const cutoff = Date.now() - IDLE_MS;
    // A session whose requests or server stream another instance holds is in use too.
    for (const s of [...this.sessions.values()]) if (s.active === 0 && !s.stream && s.remote.size === 0 && s.lastSeen < cutoff) this.end(s.id);
  }

  /**
   * A request of the session's client, held here, that its process did not answer in time: the
   * client gets the timeout error, the process `notifications/cancelled`, and the session goes on.
   */
  private callTimedOut(sid: string, id: Id): void {
    const session = this.sessions.get(sid);
    if (!session) return;
    const name = session.server.name;
    const error = { jsonrpc: '2.0' as const, id, error: { code: RPC.SERVER_UNAVAILABLE, message: `Tool server ${name} did not answer in time.` } };
    void session.downstream.send(error).catch((err: Error) => this.logger.debug({ mcpServer: name, err: err.message }, 'a timeout error had nowhere to go'));
    this.logger.warn({ mcpServer: name }, 'a tool server session call timed out');
    const cancel = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'Request timed out' } } as RpcMessage;
    this.fromClient(session, session.server, session.downstream, session.child, cancel);
  }

  /** Ends every session's GET stream so that shutdown does not wait for it. */
  drain(): void {
    this.draining = true;
    for (const s of this.sessions.values()) {
      s.downstream.closeStandaloneSSEStream();
      // Requests other instances hold for this one's sessions end now, while the bus is still there: their
      // clients open new sessions elsewhere rather than wait for processes that stop with this instance.
      this.releaseElsewhere(s);
    }
    for (const [rid, f] of this.forwarded) if (f.op === 'get') this.finish(rid);
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    clearInterval(this.pinger);
    for (const id of [...this.sessions.keys()]) this.end(id);
    for (const rid of [...this.forwarded.keys()]) this.finish(rid);
  }

  /** Requests other instances hold for the session end (their clients' unanswered requests get an error). */
  private releaseElsewhere(session: ProcessSession): void {
    const elsewhere = new Map<string, Elsewhere>();
    for (const e of [...session.remote.values(), ...(session.stream ? [session.stream] : [])]) elsewhere.set(e.rid, e);
    session.remote.clear();
    session.stream = undefined;
    for (const e of elsewhere.values()) this.sendTo(e, 'close', []);
  }

  /** A new session's id: its server, caller and the bus address of this instance, sealed. */
  private newId(server: ProcessServer, identity: Identity): string {
    if (!this.seal) return PREFIX + randomUUID();
    const sealed = this.seal.seal({ s: server.name, o: ownerOf(identity), ...(this.bus?.active ? { b: this.bus.address } : {}) });
    return PREFIX + sealed.slice(SEALED_PREFIX.length);
  }

  private sendTo(to: Elsewhere, op: 'out' | 'close', messages: Array<Record<string, unknown>>): void {
    this.bus?.publish({ kind: 'process', sid: '', to: to.to, op, rid: to.rid, messages });
  }

  // ---- The instance a request came to, for a session another instance runs ----

  /** Passes a client's request on to the instance running the session's process, and relays what comes back. */
  private forward(req: IncomingMessage, res: ServerResponse, identity: Identity, server: ProcessServer, body: unknown, sid: string, steps?: AnswerSteps): void {
    const bus = this.bus;
    const sealed = bus?.active ? this.seal?.open(SEALED_PREFIX + sid.slice(PREFIX.length)) : undefined;
    if (!bus || !sealed?.b || sealed.b === bus.address || sealed.s !== server.name || sealed.o !== ownerOf(identity)) throw noSuchSession();
    const refused = this.transportError(req);
    if (refused) return jsonAnswer(res, refused.status, { jsonrpc: '2.0', id: null, error: { code: -32000, message: refused.message } });
    const op = req.method === 'GET' ? 'get' : req.method === 'DELETE' ? 'delete' : 'post';
    let messages: RpcMessage[] = [];
    if (op === 'post') {
      messages = Array.isArray(body) ? (body as RpcMessage[]) : [body as RpcMessage];
      if (!messages.length || !messages.every(isMessage)) {
        jsonAnswer(res, 400, { jsonrpc: '2.0', id: null, error: { code: RPC.INVALID_REQUEST, message: 'Invalid Request: a JSON-RPC 2.0 message or a batch of them.' } });
        return;
      }
      if (messages.some((m) => m.method === 'initialize')) {
        jsonAnswer(res, 400, { jsonrpc: '2.0', id: null, error: { code: RPC.INVALID_REQUEST, message: 'Invalid Request: the session is initialized already.' } });
        return;
      }
    }
    const rid = randomUUID();
    const waiting = new Set<Id>(messages.filter(isRequest).map((m) => m.id as Id));
    const timer = setTimeout(() => {
      if (this.forwarded.get(rid)?.acked === false) {
        this.forwarded.delete(rid);
        answerNoSession(res);
      }
    }, ACK_MS);
    timer.unref();
    this.forwarded.set(rid, {
      op,
      res,
      sid,
      waiting,
      acked: false,
      timer,
      owner: sealed.b,
      server: server.name,
      callMs: server.timeoutMs,
      steps: steps?.length ? steps : undefined,
    });
    res.once('close', () => {
      const held = this.forwarded.get(rid);
      if (!held) return;
      this.finish(rid);
      if (held.op === 'get') bus.publish({ kind: 'process', sid, to: sealed.b, op: 'unget', rid, messages: [] });
    });
    bus.publish({
      kind: 'process',
      sid,
      to: sealed.b,
      op,
      rid,
      reply: bus.address,
      identity: identity as unknown as Record<string, unknown>,
      messages: messages as Array<Record<string, unknown>>,
    });
  }

  /** What the session's own transport would refuse in the request's headers, refused the same way here. */
  private transportError(req: IncomingMessage): { status: number; message: string } | undefined {
    const accept = req.headers.accept ?? '';
    if (req.method === 'GET' && !accept.includes('text/event-stream')) return { status: 406, message: 'Not Acceptable: Client must accept text/event-stream' };
    if (req.method === 'POST') {
      if (!accept.includes('application/json') || !accept.includes('text/event-stream'))
        return { status: 406, message: 'Not Acceptable: Client must accept both application/json and text/event-stream' };
      if (!(req.headers['content-type'] ?? '').includes('application/json')) return { status: 415, message: 'Unsupported Media Type: Content-Type must be application/json' };
    }
    if (req.method !== 'GET' && req.method !== 'POST' && req.method !== 'DELETE') return { status: 405, message: 'Method not allowed.' };
    const version = req.headers['mcp-protocol-version'];
    if (typeof version === 'string' && !SUPPORTED_PROTOCOL_VERSIONS.includes(version))
      return { status: 400, message: `Bad Request: Unsupported protocol version: ${version} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})` };
    return undefined;
  }

  private finish(rid: string): void {
    const held = this.forwarded.get(rid);
    if (!held) return;
    this.forwarded.delete(rid);
    clearTimeout(held.timer);
    clearTimeout(held.callTimer);
    if (!held.res.writableEnded) held.res.end();
  }

  /**
   * The call timeout of a POST's requests held here (the session's instance runs them): started
   * when that instance takes them, started again with every message that comes back for them
   * (progress, log messages), and at least CLIENT_ANSWER_MS once the tool server asked the client
   * something. When it runs out, the requests not answered yet get the timeout error, the
   * session's instance is told to cancel them, and the held request ends.
   */
  private armCall(rid: string, held: Forwarded): void {
    clearTimeout(held.callTimer);
    held.callTimer = setTimeout(() => this.timedOut(rid), held.asked ? Math.max(held.callMs, CLIENT_ANSWER_MS) : held.callMs);
    held.callTimer.unref();
  }

  private timedOut(rid: string): void {
    const held = this.forwarded.get(rid);
    if (!held) return;
    const ids = [...held.waiting];
    for (const id of ids) {
      const error = { jsonrpc: '2.0', id, error: { code: RPC.SERVER_UNAVAILABLE, message: `Tool server ${held.server} did not answer in time.` } };
      held.res.write(`event: message\ndata: ${JSON.stringify(error)}\n\n`);
    }
    this.logger.warn({ mcpServer: held.server, requests: ids.length }, 'a tool server session call passed to another instance timed out');
    this.bus?.publish({ kind: 'process', sid: held.sid, to: held.owner, op: 'cancel', rid, messages: ids.map((id) => ({ id })) });
    this.finish(rid);
  }

  /**
   * A held request whose session is gone (its process ended, or its instance stopped or stopped
   * answering): its requests not answered yet get an error, and its stream ends.
   */
  private abandon(rid: string): void {
    const held = this.forwarded.get(rid);
    if (!held) return;
    if (!held.acked) {
      this.forwarded.delete(rid);
      clearTimeout(held.timer);
      return answerNoSession(held.res);
    }
    for (const id of held.waiting) {
      const error = {
        jsonrpc: '2.0',
        id,
        error: { code: RPC.SERVER_UNAVAILABLE, message: 'The session ended: its tool server process is gone. Open a new session with initialize.' },
      };
      held.res.write(`event: message\ndata: ${JSON.stringify(error)}\n\n`);
    }
    this.finish(rid);
  }

  /** Asks each instance this one holds requests for whether it is there; one that has not answered for GONE_MS is gone. */
  private ping(): void {
    if (!this.bus?.active) return;
    const owners = new Set<string>();
    for (const held of this.forwarded.values()) if (held.acked) owners.add(held.owner);
    for (const owner of this.probes.keys()) if (!owners.has(owner)) this.probes.delete(owner);
    const now = Date.now();
    for (const owner of owners) {
      const probe = this.probes.get(owner);
      if (probe && now - probe.at >= GONE_MS) {
        this.probes.delete(owner);
        this.logger.warn({ instance: owner }, 'an instance running MCP tool server sessions stopped answering; their requests held here end');
        for (const [rid, held] of [...this.forwarded]) if (held.owner === owner) this.abandon(rid);
        continue;
      }
      if (probe) continue;
      const rid = randomUUID();
      this.probes.set(owner, { rid, at: now });
      this.bus.publish({ kind: 'process', sid: '', to: owner, op: 'ping', rid, reply: this.bus.address, messages: [] });
    }
  }

  /** What the session's own instance answers to a request passed on from here. */
  private answered(message: BusMessage): void {
    const rid = message.rid ?? '';
    const held = this.forwarded.get(rid);
    if (!held) return;
    const { res } = held;
    if (message.op === 'ack') {
      held.acked = true;
      clearTimeout(held.timer);
      if (message.status !== 200) {
        this.forwarded.delete(rid);
        return answerNoSession(res);
      }
      if (held.op === 'delete' || (held.op === 'post' && held.waiting.size === 0)) {
        res.writeHead(held.op === 'delete' ? 200 : 202, { 'mcp-session-id': held.sid }).end();
        this.forwarded.delete(rid);
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', 'mcp-session-id': held.sid });
      res.flushHeaders();
      if (held.op === 'post') this.armCall(rid, held);
      return;
    }
    if (message.op === 'close') return this.abandon(rid);
    if (message.op !== 'out' || !held.acked) return;
    const steps = held.steps;
    if (steps && (held.outbox?.busy || message.messages.some((m) => wantsAnswer(steps, m)))) {
      // An answer the steps want: it and what comes after it wait for them, in order.
      this.later((held.outbox ??= { queue: Promise.resolve(), busy: 0 }), held.server, async () => {
        const messages: Array<Record<string, unknown>> = [];
        for (const m of message.messages) messages.push(wantsAnswer(steps, m) ? ((await runAnswerSteps(steps, m)) ?? m) : m);
        if (this.forwarded.get(rid) === held) this.relayOut(rid, held, messages);
      });
      return;
    }
    this.relayOut(rid, held, message.messages);
  }

  /** What the session's instance says for a request held here, written to its client. */
  private relayOut(rid: string, held: Forwarded, messages: Array<Record<string, unknown>>): void {
    const { res } = held;
    for (const m of messages) {
      res.write(`event: message\ndata: ${JSON.stringify(m)}\n\n`);
      if (isResponse(m as RpcMessage)) held.waiting.delete(m.id as Id);
      else if (isRequest(m as RpcMessage)) held.asked = true;
    }
    if (held.op === 'post' && held.waiting.size === 0) this.finish(rid);
    else if (held.op === 'post') this.armCall(rid, held);
  }

  // ---- The instance running the session's process, for requests that came to another ----

  private fromBus(message: BusMessage): void {
    if (message.op === 'ack' || message.op === 'out' || message.op === 'close') return this.answered(message);
    if (message.op === 'pong') {
      for (const [owner, probe] of this.probes) if (probe.rid === message.rid) this.probes.delete(owner);
      return;
    }
    if (message.op === 'ping') {
      if (message.reply) this.bus?.publish({ kind: 'process', sid: '', to: message.reply, op: 'pong', rid: message.rid, messages: [] });
      return;
    }
    const session = this.sessions.get(message.sid);
    const reply = message.reply;
    const rid = message.rid;
    if (message.op === 'unget') {
      if (session && rid && session.stream?.rid === rid) session.stream = undefined;
      return;
    }
    if (message.op === 'cancel') {
      // The instance holding the client's request gave up on these requests (their timeout): the process is told.
      for (const { id } of message.messages as Array<{ id: Id }>) {
        if (!session || !rid || session.remote.get(id)?.rid !== rid) continue;
        const cancel = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'Request timed out' } } as RpcMessage;
        this.fromClient(session, session.server, session.downstream, session.child, cancel);
      }
      return;
    }
    if (!reply || !rid) return;
    const ack = (status: number) => this.bus?.publish({ kind: 'process', sid: '', to: reply, op: 'ack', rid, status, messages: [] });
    const identity = message.identity as unknown as Identity | undefined;
    if (this.draining || !session || !identity || typeof identity.kind !== 'string' || session.owner !== ownerOf(identity)) return ack(404);
    session.identity = identity;
    session.lastSeen = Date.now();
    const here: Elsewhere = { to: reply, rid };
    if (message.op === 'get') {
      session.stream = here;
      return ack(200);
    }
    if (message.op === 'delete') {
      ack(200);
      void session.downstream.close().catch(() => undefined);
      return this.end(session.id);
    }
    if (message.op !== 'post') return ack(400);
    for (const m of message.messages as RpcMessage[]) if (isRequest(m)) session.remote.set(m.id as Id, here);
    ack(200);
    for (const m of message.messages as RpcMessage[]) this.fromClient(session, session.server, session.downstream, session.child, m);
  }
}
