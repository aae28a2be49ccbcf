import type { IncomingMessage, ServerResponse } from 'node:http';
import { request } from 'undici';
import type { Identity } from '../../../kernel/engine/context.js';
import { redactAnswer, redactAnswerBytes } from '../../../kernel/errors/redact.js';
import type { Logger } from '../../../kernel/observability/logger.js';
import type { AccessStep } from '../dispatch/access-step.js';
import { IDENTITY_META_KEY } from '../../auth/index.js';
import { ownerOf } from '../session-owner.js';
import type { RemoteServer } from '../upstream/remote-server.js';
import { RPC, RpcFailure } from '../rpc-errors.js';
import { firstDenied, isListRequest, messagesOf, pinnedInstructions, type RpcMessage } from './message-guard.js';
import { rewritingStream, type MessageEdit, type TextEdit } from './message-rewriter.js';
import { runAnswerStepsOnBody, type AnswerSteps } from '../dispatch/answer-steps.js';
import { MAX_SESSION_ID, type SealedSession, type SessionSeal } from './session-seal.js';
import { abortSignalOf, exchange, type ExchangeAnswer, type ExchangeSignal } from './upstream-exchange.js';
import { openSession, SessionRenewals } from './session-renewals.js';
import type { SessionEnds } from './session-ends.js';
import { upstreamFailure } from '../upstream/upstream-failure.js';
import { watchEventStream } from './stream-deadline.js';
import { answerNoSession, noSuchSession } from './no-session.js';
import { badRequest, GatewayError } from '../../../contract/errors/gateway-error.js';

/** Request headers of the client that a tool server needs (nothing else of the caller's request goes). */
const PASSED_REQUEST_HEADERS = ['content-type', 'accept', 'mcp-protocol-version', 'last-event-id'];
/** Answer headers of the tool server passed back (its session id is replaced by the sealed one). */
const PASSED_ANSWER_HEADERS = ['content-type', 'cache-control', 'mcp-protocol-version', 'x-accel-buffering', 'retry-after', 'allow'];

function jsonAnswer(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** A whole JSON answer (one message or a batch) with `edit` applied; as it was when it is not JSON. */
function editWhole(body: Buffer, edit: MessageEdit): Buffer {
  try {
    const parsed = JSON.parse(body.toString('utf8')) as unknown;
    const out = Array.isArray(parsed) ? parsed.map((m) => edit(m as Record<string, unknown>)) : edit(parsed as Record<string, unknown>);
    return Buffer.from(JSON.stringify(out));
  } catch {
    return body;
  }
}

/** The body without `_meta["io.gateway/identity"]` a caller put there (only the gateway says who is calling). */
function withoutForgedIdentity(raw: Buffer, body: unknown): Buffer {
  const strip = (m: RpcMessage) => {
    const meta = m.params?._meta as Record<string, unknown> | undefined;
    if (!meta || !(IDENTITY_META_KEY in meta)) return m;
    const rest = { ...meta };
    delete rest[IDENTITY_META_KEY];
    return { ...m, params: { ...m.params, _meta: rest } };
  };
  if (Array.isArray(body)) return Buffer.from(JSON.stringify(body.map((m) => (m && typeof m === 'object' ? strip(m as RpcMessage) : m))));
  if (body && typeof body === 'object') return Buffer.from(JSON.stringify(strip(body as RpcMessage)));
  return raw;
}

/**
 * For a caller of forward without the request's caller signal: the answer closed before it was
 * complete. A class: an object literal with a getter would get a hidden class of its own per request.
 */
class CloseSignal {
  constructor(private readonly res: ServerResponse) {}

  get aborted(): boolean {
    return this.res.destroyed && !this.res.writableFinished;
  }

  once(_event: 'abort', listener: () => void): void {
    const res = this.res;
    res.once('close', () => {
      if (!res.writableFinished) listener();
    });
  }
}

/** The ids of the requests among a POST's messages. */
function callIds(messages: RpcMessage[]): Array<string | number> {
  const ids: Array<string | number> = [];
  for (const m of messages) if (typeof m.method === 'string' && (typeof m.id === 'string' || typeof m.id === 'number')) ids.push(m.id);
  return ids;
}

function rpcError(id: RpcMessage['id'], code: number, message: string, data?: unknown) {
  return { jsonrpc: '2.0', id: id ?? null, error: data === undefined ? { code, message } : { code, message, data } };
}

/**
 * A failure of the tool server, or of reaching it, as the client gets it. Each JSON-RPC request
 * of a POST (`calls`) gets a JSON-RPC error, in a 200 answer: what an MCP client takes as that
 * request's error (the SDK client takes any other status for a broken transport), as on /mcp.
 * Anything else (a GET, a DELETE, a POST of notifications only) gets the contract's error body
 * (`error`: provider_error 502, service_unavailable 503). Nothing the server said is in it.
 */
function answerFailure(
  res: ServerResponse,
  calls: ReadonlyArray<string | number> | undefined,
  message: string,
  error: GatewayError,
  code: number = RPC.SERVER_UNAVAILABLE,
  data?: unknown,
): void {
  if (res.headersSent || res.destroyed) return void res.end();
  if (calls?.length) {
    const errors = calls.map((id) => rpcError(id, code, message, data));
    jsonAnswer(res, 200, errors.length === 1 ? errors[0] : errors);
    return;
  }
  jsonAnswer(res, error.status, error.answerBody(), error.retryAfter === undefined ? {} : { 'retry-after': String(error.retryAfter) });
}

/** `headers` naming another session with the server (none: the server keeps none). */
function withSession(headers: Record<string, string>, session: string | undefined): Record<string, string> {
  const out = { ...headers };
  if (session) out['mcp-session-id'] = session;
  else delete out['mcp-session-id'];
  return out;
}

/** The params of a client's initialize, kept to open a new session with them (without `_meta`: the request's own). */
function initializeParams(init: RpcMessage | undefined): Record<string, unknown> | undefined {
  const params = init?.params;
  if (!params || typeof params !== 'object' || Array.isArray(params)) return undefined;
  const { _meta: _request, ...kept } = params;
  return kept;
}

/** A new session with the server, in place of one it forgot: its id there, and the id the client gets for it (a client's own session). */
type Renewal = { upstream: string; client?: string };

/** How `RemoteRelay.forward` sends one request and answers it. */
interface ForwardOptions {
  firstId?: RpcMessage['id'];
  edit?: MessageEdit;
  /** Whether a whole JSON answer needs `edit` at all (a cheap look at its bytes). */
  editIf?: (body: Buffer) => boolean;
  /** The dispatch's answer steps of this request (a tool result's guardrails), after the edits. */
  steps?: AnswerSteps;
  sharedSession?: string;
  /** The request names a client's own session (which the server may have ended). */
  clientSession?: boolean;
  /**
   * The server forgot the client's own session (`forgotten`, its id there; it restarted): a new
   * one (see SessionRenewals), or undefined when none could be had.
   */
  renew?: (forgotten: string, signal: ExchangeSignal) => Promise<Renewal | undefined>;
  sessionOut?: (upstreamId: string) => string;
  done?: (status: number) => void;
  /** The caller went away (the request's caller signal); without one, the answer's close says so. */
  signal?: ExchangeSignal;
  /** The ids of the POST's requests: they wait for their answers at most the server's call timeout. */
  calls?: ReadonlyArray<string | number>;
}

const providerError = (message: string) => new GatewayError('provider_error', message);
const unavailable = (message: string) => new GatewayError('service_unavailable', message, { retryAfter: 1 });

/**
 * /mcp/<server> for a remote (Streamable HTTP) tool server, as a faithful relay: each client
 * session is a session of its own with the tool server, and every HTTP request of it (POST,
 * the GET stream with Last-Event-ID, DELETE) is passed on with the body as it came and the
 * answer streamed back as it comes, so whatever the two say to each other (the server's own
 * requests, log and progress notifications, cancellation, subscriptions, resumed streams) passes
 * unchanged. The gateway only decides (authorization per message), adds the configured headers
 * and the caller's identity, masks the server's credentials and, for a caller whose
 * permissions.tools narrow it, leaves unusable tools out of tools/list. The session id the
 * client gets seals the server's own (any instance serves it). A client that keeps no session
 * rides on the gateway's shared session with the server.
 */
export class RemoteRelay {
  /** New sessions for client sessions the server forgot. */
  private readonly renewals = new SessionRenewals();

  constructor(
    readonly seal: SessionSeal,
    private readonly access: AccessStep,
    private readonly logger: Logger,
    /** Sessions their clients ended (DELETE): never renewed. */
    private readonly ends?: SessionEnds,
  ) {}

  /**
   * `identityHeaders`: the caller's identity headers as the forward-identity stage computed them
   * (computed here when the pipeline has no such stage).
   */
  async handle(
    req: IncomingMessage,
    res: ServerResponse,
    identity: Identity,
    server: RemoteServer,
    raw: Buffer | undefined,
    body: unknown,
    identityHeaders?: Record<string, string>,
    signal?: ExchangeSignal,
    steps?: AnswerSteps,
  ): Promise<void> {
    const started = performance.now();
    const sessionHeader = req.headers['mcp-session-id'];
    const messages = messagesOf(body);
    let upstreamSession: string | undefined;
    let opening = false;
    /** The client's own session: its id, and what the id carries. */
    let client: { id: string; session: SealedSession } | undefined;
    if (typeof sessionHeader === 'string' && sessionHeader) {
      const session = this.seal.open(sessionHeader);
      if (!session || session.g || session.o !== ownerOf(identity) || session.s !== server.name) {
        throw noSuchSession();
      }
      client = { id: sessionHeader, session };
      upstreamSession = session.u;
      // The server forgot it and this instance renewed it (for a client that still sends the old id): the new one serves.
      const replaced = upstreamSession === undefined ? undefined : this.renewals.replaced(server.name, session.o, upstreamSession);
      if (replaced) upstreamSession = (await replaced) ?? upstreamSession;
    } else if (messages.some((m) => m.method === 'initialize')) {
      opening = true;
    } else if (req.method !== 'POST') {
      throw badRequest('An Mcp-Session-Id header is required for GET and DELETE (open a session with initialize).', 'Mcp-Session-Id');
    } else {
      if (!(await server.whenReady())) {
        const message = `Tool server ${server.name} is unavailable.`;
        answerFailure(res, callIds(messages), message, unavailable(message));
        return;
      }
      upstreamSession = server.sharedSession?.sessionId;
    }

    const denied = this.access.maySee(identity, server.name)
      ? firstDenied(this.access, identity, server.name, messages, started)
      : {
          message: messages[0] ?? {},
          refusal: this.access.admit(identity, String(messages[0]?.method ?? req.method), { action: 'list', server: server.name }, undefined, started)!,
        };
    if (denied) {
      const { refusal } = denied;
      const error = {
        jsonrpc: '2.0',
        id: denied.message.id ?? null,
        error: { code: refusal.code, message: refusal.message, ...(refusal.data === undefined ? {} : { data: refusal.data }) },
      };
      jsonAnswer(res, req.method === 'POST' && denied.message.id !== undefined ? 200 : 403, error);
      return;
    }

    if (raw && raw.includes(IDENTITY_META_KEY)) raw = withoutForgedIdentity(raw, body);
    let headers: Record<string, string>;
    try {
      headers = await server.upstreamHeaders(identity, identityHeaders);
    } catch (err) {
      if (!(err instanceof RpcFailure)) throw err;
      answerFailure(res, req.method === 'POST' ? callIds(messages) : undefined, err.message, providerError(err.message), err.code, err.data);
      return;
    }
    for (const name of PASSED_REQUEST_HEADERS) {
      const value = req.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    if (upstreamSession) headers['mcp-session-id'] = upstreamSession;
    else if (!opening && server.sharedSession?.protocolVersion && !headers['mcp-protocol-version']) headers['mcp-protocol-version'] = server.sharedSession.protocolVersion;
    let edit = this.access.screensLists(identity, server.name) && messages.some(isListRequest) ? this.listFilter(identity, server.name) : undefined;
    // A session's initialize answer: its instructions are held against the server's pin.
    const init = opening ? messages.find((m) => m.method === 'initialize' && m.id !== undefined && m.id !== null) : undefined;
    if (init) {
      const listed = edit;
      edit = (m) => {
        const out = listed ? listed(m) : m;
        return out.id === init.id && 'result' in out ? (pinnedInstructions(this.access, identity, server, out) as Record<string, unknown>) : out;
      };
    }
    const call = messages.find((m) => m.method === 'tools/call');
    const opened = opening ? initializeParams(init) : undefined;
    // The client ends its session: the server forgetting it from now on is no reason to open another.
    if (client && req.method === 'DELETE') void this.ends?.end(client.id);
    await this.forward(req, res, server, headers, raw, {
      firstId: messages[0]?.id,
      signal,
      calls: req.method === 'POST' ? callIds(messages) : undefined,
      edit,
      steps,
      sharedSession: !opening && !sessionHeader ? upstreamSession : undefined,
      clientSession: Boolean(sessionHeader),
      sessionOut: opening ? (id) => this.sealed(server.name, ownerOf(identity), id, opened) : undefined,
      renew: client && req.method === 'POST' ? this.renewalOf(server, client.id, client.session, headers) : undefined,
      done: call ? (status) => this.access.ended(identity, 'tools/call', server.name, String(call.params?.name ?? ''), status < 300 ? 'ok' : 'error', started) : undefined,
    });
  }

  /**
   * How a client session the server forgot is renewed (see SessionRenewals), with `headers` (the
   * client's request's): never once its client ended it; none for a session whose id does not
   * carry its initialize (nothing to open another with).
   */
  private renewalOf(server: RemoteServer, id: string, session: SealedSession, headers: Record<string, string>): ForwardOptions['renew'] {
    const { o: owner, u: upstream, n: init } = session;
    if (upstream === undefined || init === undefined) return undefined;
    return async (forgotten, caller) => {
      if (await this.ends?.ended(id)) return undefined;
      const renewed = await this.renewals.renew(server.name, owner, upstream, forgotten, () => openSession(server, headers, init, caller));
      return renewed === undefined ? undefined : { upstream: renewed, client: this.sealed(server.name, owner, renewed, init) };
    };
  }

  /**
   * The id a relayed session's client gets: the server's own id for it and what the client's
   * initialize said (`init`, to open a new one with when the server forgets it; left out of an id
   * that would be too long to be taken back).
   */
  private sealed(server: string, owner: string, upstream: string, init: Record<string, unknown> | undefined): string {
    const session: SealedSession = { s: server, o: owner, u: upstream };
    const whole = init ? this.seal.seal({ ...session, n: init }) : undefined;
    return whole && whole.length <= MAX_SESSION_ID ? whole : this.seal.seal(session);
  }

  /**
   * Sends one HTTP request to the server and answers the client with what comes back: a whole
   * JSON answer in one write, an event stream as it comes. `edit` changes messages on the way
   * (the server's credentials are always masked when it has any).
   */
  async forward(req: IncomingMessage, res: ServerResponse, server: RemoteServer, headers: Record<string, string>, raw: Buffer | undefined, opts: ForwardOptions): Promise<void> {
    const sent = await this.send(req, res, server, headers, raw, opts);
    if (!sent) return;
    const upstream = sent.answer;
    headers = sent.headers;
    const status = upstream.status;
    const stream = upstream.stream;
    if (status === 404 && opts.clientSession) {
      // The server ended the client's session: unknown here too (the contract's 404, as on every MCP endpoint).
      stream?.destroy();
      answerNoSession(res);
      opts.done?.(404);
      return;
    }
    if ((status === 404 && opts.sharedSession) || status === 401 || status === 403) {
      // What the server said is not passed on (an event stream of it is ended).
      stream?.destroy();
      if (status === 404) {
        // The server forgot the gateway's shared session: open a new one and tell the client to retry.
        void server.renewSharedSession().catch(() => undefined);
        const message = `Tool server ${server.name} is reconnecting; try again.`;
        answerFailure(res, opts.calls, message, unavailable(message));
      } else if (status === 401 && (await server.tokenRefused())) {
        // The caller's own token was refused: a 502 whatever was sent (the client reconnects, or retries once it is refreshed).
        const message = `Tool server ${server.name} refused your connection's token: retry (it is refreshed), or connect again.`;
        answerFailure(res, undefined, message, providerError(message));
      } else {
        const message = `Tool server ${server.name} refused the gateway's credentials.`;
        answerFailure(res, opts.calls, message, providerError(message));
      }
      opts.done?.(502);
      return;
    }
    if (status >= 500) {
      // The server failed (HTTP 5xx): what it said is not passed on (it may hold anything), only that it failed.
      stream?.destroy();
      const message = `Tool server ${server.name} failed with HTTP ${status}.`;
      this.logger.warn({ mcpServer: server.name, status }, 'tool server answered with an HTTP error');
      answerFailure(res, opts.calls, message, providerError(message));
      opts.done?.(status);
      return;
    }

    const answerHeaders: Record<string, string> = {};
    for (const name of PASSED_ANSWER_HEADERS) {
      const value = upstream.headers[name];
      if (typeof value === 'string') answerHeaders[name] = value;
    }
    const upstreamSessionOut = upstream.headers['mcp-session-id'];
    if (opts.sessionOut && typeof upstreamSessionOut === 'string' && status < 300) answerHeaders['mcp-session-id'] = opts.sessionOut(upstreamSessionOut);
    // The client's session was renewed: the client names the new one from now on.
    if (sent.session && status < 300) answerHeaders['mcp-session-id'] = sent.session;
    const edit = opts.edit;

    if (!stream) {
      // A whole answer: edited if needed, and written at once.
      let body = upstream.body!;
      if (upstream.broken) {
        const message = `Tool server ${server.name} broke off its answer.`;
        answerFailure(res, opts.calls, message, providerError(message));
        opts.done?.(502);
        return;
      }
      if (server.secrets.length) body = redactAnswerBytes(body, server.secrets);
      if (edit && body.length && (!opts.editIf || opts.editIf(body))) body = editWhole(body, edit);
      if (opts.steps?.length) body = (await runAnswerStepsOnBody(opts.steps, body)) ?? body;
      answerHeaders['content-length'] = String(body.length);
      res.writeHead(status, answerHeaders);
      res.end(body);
      opts.done?.(status);
      return;
    }
    res.writeHead(status, answerHeaders);
    res.flushHeaders();
    const text: TextEdit | undefined = server.secrets.length ? (t) => redactAnswer(t, server.secrets) : undefined;
    const steps = opts.steps?.length ? opts.steps : undefined;
    const out = text || edit || steps ? stream.pipe(rewritingStream(text, edit, steps)) : stream;
    stream.once('error', () => res.destroy());
    if (out !== stream) out.once('error', (err) => res.destroy(err));
    res.once('close', () => {
      if (!stream.destroyed) stream.destroy();
    });
    let timedOut = false;
    if (opts.calls?.length && status < 300) {
      watchEventStream(stream, opts.calls, server.timeoutMs, (unanswered) => {
        timedOut = true;
        this.logger.warn({ mcpServer: server.name, requests: unanswered.length }, 'a relayed tool server call timed out');
        out.unpipe(res);
        stream.destroy();
        this.cancelUpstream(server, headers, unanswered);
        // A blank line first ends an event the server left half written.
        let events = '\n\n';
        for (const id of unanswered)
          events += `event: message\ndata: ${JSON.stringify(rpcError(id, RPC.SERVER_UNAVAILABLE, `Tool server ${server.name} did not answer in time.`))}\n\n`;
        res.end(events);
      });
    }
    out.pipe(res);
    if (opts.done) res.once('finish', () => opts.done!(timedOut ? 504 : status));
  }

  /**
   * The exchange of `forward`, with what a call on /mcp does when the connection to the server or
   * the session with it is lost, by the same rules: a request that found no connection (the
   * server is down, or restarting) waits for the server to reconnect (up to startTimeout, see
   * UpstreamServer.reconnected) and goes once more; a POST whose session the server forgot (404:
   * it restarted) goes once more on a new one, the gateway's shared session renewed as /mcp
   * renews it, or the client's own session renewed (see SessionRenewals). Undefined when the
   * client was answered already (a failure).
   */
  private async send(
    req: IncomingMessage,
    res: ServerResponse,
    server: RemoteServer,
    headers: Record<string, string>,
    raw: Buffer | undefined,
    opts: ForwardOptions,
  ): Promise<{ answer: ExchangeAnswer; headers: Record<string, string>; session?: string } | undefined> {
    // The client went away before the answer was complete: the request to the server ends too.
    const signal = opts.signal ?? new CloseSignal(res);
    const post = req.method === 'POST';
    const shared = opts.sharedSession !== undefined;
    let waited = false;
    let renewed = false;
    let session: string | undefined;
    for (;;) {
      let answer: ExchangeAnswer;
      try {
        answer = await exchange(server.agent, {
          origin: server.origin,
          path: server.path,
          method: req.method ?? 'POST',
          headers,
          body: raw,
          headersTimeout: server.timeoutMs,
          signal,
        });
      } catch (err) {
        if (res.destroyed) return undefined;
        if ((err as { code?: string }).code === 'UND_ERR_HEADERS_TIMEOUT' && opts.calls?.length) {
          // No answer at all within the call timeout: each request gets the timeout error, and the server is told to cancel them.
          this.cancelUpstream(server, headers, opts.calls);
          const errors = opts.calls.map((id) => rpcError(id, RPC.SERVER_UNAVAILABLE, `Tool server ${server.name} did not answer in time.`));
          jsonAnswer(res, 200, errors.length === 1 ? errors[0] : errors);
          opts.done?.(504);
          return undefined;
        }
        if (await server.reconnected(err, post && !waited, abortSignalOf(signal))) {
          waited = true;
          // Reconnected, the server holds a new shared session.
          if (shared) headers = withSession(headers, server.sharedSession?.sessionId);
          continue;
        }
        this.logger.warn({ mcpServer: server.name, err: redactAnswer((err as Error).message, server.secrets) }, 'tool server request failed');
        // What a call on /mcp gets for the same failure.
        const failure = upstreamFailure(server.name, err, server.secrets);
        answerFailure(res, opts.calls, failure.message, providerError(failure.message), failure.code);
        opts.done?.(502);
        return undefined;
      }
      const forgotten = answer.status === 404 && post && !renewed ? headers['mcp-session-id'] : undefined;
      if (!forgotten || !(shared || opts.renew)) return { answer, headers, session };
      // The server forgot the session (it restarted): the request goes once more on a new one.
      answer.stream?.destroy();
      renewed = true;
      const renewal = shared ? await this.renewShared(server, forgotten, signal) : await opts.renew!(forgotten, signal);
      if (!renewal) {
        if (shared) {
          // As a call on /mcp: the server did not come back in time.
          const failure = server.unavailable();
          answerFailure(res, opts.calls, failure.message, unavailable(failure.message), failure.code);
          opts.done?.(502);
        } else {
          // No new session could be had: the client opens one itself (the contract's 404, as on every MCP endpoint).
          answerNoSession(res);
          opts.done?.(404);
        }
        return undefined;
      }
      headers = withSession(headers, renewal.upstream);
      session = renewal.client;
    }
  }

  /** A new shared session in place of the one the server forgot (as /mcp opens one), once the server is up again. */
  private async renewShared(server: RemoteServer, forgotten: string, signal: ExchangeSignal): Promise<Renewal | undefined> {
    await server.renewSharedSession(forgotten).catch(() => undefined);
    const id = (await server.whenReady(abortSignalOf(signal))) ? server.sharedSession?.sessionId : undefined;
    return id ? { upstream: id } : undefined;
  }

  /** Tells the tool server that the gateway gave up on these requests (their call timeout ran out). */
  private cancelUpstream(server: RemoteServer, headers: Record<string, string>, ids: ReadonlyArray<string | number>): void {
    const sent = { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    for (const requestId of ids) {
      const body = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId, reason: 'Request timed out' } });
      void request(server.url, { method: 'POST', headers: sent, body, dispatcher: server.agent, headersTimeout: server.timeoutMs })
        .then((answer) => answer.body.dump())
        .catch((err: Error) => this.logger.debug({ mcpServer: server.name, err: redactAnswer(err.message, server.secrets) }, 'cancellation not delivered to the tool server'));
    }
  }

  /** Leaves the tools and prompts a caller may not see out of a list answer (the access step decides). */
  private listFilter(identity: Identity, server: string): MessageEdit {
    return (message) => {
      const result = message.result as Record<string, unknown> | undefined;
      if (!result || typeof result !== 'object') return message;
      const screened = this.access.screenListResult(identity, server, result);
      return screened === result ? message : { ...message, result: screened };
    };
  }
}
