import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import type { AnswerError } from '../errors/answer-error.js';
import { CallerSignal } from './caller-signal.js';
import { defineSlot, type Slot } from './slot.js';

/** Who is calling, when the caller sent a gateway credential (token, config key, OAuth, cert). */
export interface Identity {
  /** 'anonymous': /mcp with auth disabled (no credential checked). */
  kind: 'token' | 'api-key' | 'oauth' | 'mtls' | 'admin' | 'anonymous' | (string & {});
  /** Stable id of the credential (token id, key hash, subject). */
  id: string;
  user?: string;
  email?: string;
  name?: string;
  team?: string;
  roles?: string[];
  organization?: string;
  scopes?: string[];
  permissions?: { servers?: string[]; tools?: string[] };
}

export type HttpMethod = 'GET' | 'POST' | 'DELETE' | 'PUT' | 'PATCH' | 'OPTIONS' | 'HEAD';

/** One entry of the route table, as the kernel sees it (features add their own fields). */
export interface RouteDef {
  /** '*' only for the table's catch-all entry (unknown routes). */
  method: HttpMethod | '*';
  /** The path with `{param}` segments, e.g. /v1/files/{file_id}; '*' for the catch-all. */
  path: string;
  /** "METHOD /path", e.g. "POST /v1/files/{file_id}"; '*' for the catch-all. */
  key: string;
  /** How the request body is read: JSON (parsed once, lazily), multipart (streamed), or not at all by the edge. */
  body: 'json' | 'multipart' | 'none';
}

/** Turns stream parts into the bytes of an event stream (OpenAI SSE, Anthropic SSE...). */
export interface StreamEncoder<P = unknown> {
  /** Text for one part ('' or undefined: nothing to write). */
  write(part: P): string | undefined;
  /** Whether `part` ends the answer (nothing after it is read). */
  isEnd(part: P): boolean;
  /** The one event that ends a stream cut by a failure (the error body as data). */
  failure(body: unknown): string;
  /** The error for a stream that ended without its end part. */
  incomplete(): unknown;
  /** Called once the whole stream was written (usage accounting...). */
  completed?(): void;
}

export interface JsonAnswer {
  kind: 'json';
  status: number;
  headers?: Record<string, string>;
  /** Upstream bytes passed through untouched, when nothing had to change. */
  raw?: Buffer;
  /** The answer as an object (written when `raw` is absent). */
  body?: unknown;
}

/**
 * Parts of a stream that also come ready-made as the answer's text (an upstream's bytes in the
 * answer's own format). The edge writes `encoded()` when the parts reach it unwrapped.
 */
export interface EncodedStream {
  /** The answer's text, chunk by chunk; throws where the stream failed; ends early when cut off. */
  encoded(): AsyncIterable<Buffer>;
  /**
   * The same text pushed into `sink` as it arrives (no promise per chunk), instead of
   * `encoded()`: settles once the reading is over (the answer's end, the caller gone, or the
   * source cut off: `ended` tells which), rejects where the stream failed. Absent: pull only.
   */
  pushTo?(sink: EncodedSink): Promise<void>;
  /** Set once the chunk last handed over holds the answer's end. */
  readonly ended: boolean;
}

/** Where a pushed stream's text goes (the caller's socket, see EncodedStream.pushTo). */
export interface EncodedSink {
  /** Takes a chunk (`last`: it holds the answer's end); false when the caller's socket is full: the source waits for `onDrain`. */
  write(chunk: Buffer, last: boolean): boolean;
  /** Calls `resume` once the socket takes more, or is closed. */
  onDrain(resume: () => void): void;
  /** Whether the caller is gone (the source then stops reading). A method, not a getter: an object literal with a getter gets a hidden class of its own. */
  closed(): boolean;
}

export interface StreamAnswer<P = unknown> {
  kind: 'stream';
  status: number;
  headers?: Record<string, string>;
  /** The parts, in order; a stream with a `batches()` method hands them over in groups. */
  parts: AsyncIterable<P>;
  /** Makes the encoder of this answer (called once, when the edge starts writing). */
  encoder(): StreamEncoder<P>;
  contentType?: string;
}

export interface BinaryAnswer {
  kind: 'binary';
  status: number;
  headers?: Record<string, string>;
  contentType: string;
  body: Readable | Buffer;
}

/** An answer without a body (204 to a preflight, 202 to a notification). */
export interface EmptyAnswer {
  kind: 'empty';
  status: number;
  headers?: Record<string, string>;
}

/** The stage wrote (or is writing) the answer on the socket itself (MCP's transport): the edge writes nothing. */
export interface DirectAnswer {
  kind: 'direct';
}

export type GatewayResponse = JsonAnswer | StreamAnswer | BinaryAnswer | EmptyAnswer | DirectAnswer;

/** What `ctx.reject(status, detail)` takes: every field optional. */
export interface RejectDetail {
  /** The error body's `type` (default: the catalogue's for the status, e.g. permission_error for 403). */
  type?: string;
  /** The error body's `code` (default: the catalogue's for the status, e.g. rate_limit_exceeded for 429). */
  code?: string;
  message?: string;
  /** The request field or header at fault. */
  param?: string | null;
  /**
   * Seconds the caller should wait before trying again: the answer's Retry-After (whole seconds,
   * rounded up, at least 1). A 429 always carries Retry-After: 1 when this is not given (or is no
   * number of seconds); another status only when it is given.
   */
  retryAfter?: number;
}

/** Edge services every context reaches (one object per gateway, shared by every request). */
export interface ContextEdge {
  /** Makes the error of `ctx.reject` (the contract's error body with the given status). */
  rejection(status: number, detail: { type?: string; code?: string; message?: string; param?: string | null }): Error & AnswerError;
}

/** The Retry-After seconds of a rejection (RejectDetail.retryAfter), or undefined for none. */
function retryAfterOf(status: number, retryAfter: unknown): number | undefined {
  if (typeof retryAfter === 'number' && Number.isFinite(retryAfter) && retryAfter >= 0) return Math.max(1, Math.ceil(retryAfter));
  return status === 429 ? 1 : undefined;
}

/** Adds the headers of a pipeline's stages to an answer (see CompiledPipeline.decorate). */
export type AnswerDecorator = (ctx: GatewayContext, headers: Record<string, string>) => void;

/**
 * The authenticated caller (`ctx.identity`, the same place): provided by authenticate. A slot so
 * that stages can require it and the compiler checks that an authenticate runs before them.
 */
export const IDENTITY = defineSlot<Identity>('identity', 'an identity (authenticate)');

/**
 * The answer (`ctx.response`, the same place): written by the stages that answer (`terminal`,
 * or on some requests: a cache hit, a preflight), read on the way back by the stages before them.
 */
export const RESPONSE = defineSlot<GatewayResponse>('response', 'the answer');

const DIRECT: DirectAnswer = Object.freeze({ kind: 'direct' });

const EMPTY_PARAMS: Record<string, string> = Object.freeze({}) as Record<string, string>;

/**
 * Everything a request carries through its pipeline. The fixed fields are the ones every route
 * has (and the stable plugin API: route, method, path, headers, identity, responseHeaders,
 * reject, deferRejection); feature data lives in typed slots (`get`/`set` with a Slot).
 */
export class GatewayContext<E extends RouteDef = RouteDef> {
  readonly id: string;
  /** performance.now() when the request arrived. */
  readonly startedAt: number;
  /** The matched route pattern, e.g. "POST /v1/files/{file_id}" ('*' for an unknown route). */
  readonly route: string;
  readonly method: string;
  /** The request path, without the query. */
  readonly path: string;
  /** Request headers, lower case. */
  readonly headers: IncomingHttpHeaders;
  /** Path parameters of the route ({file_id}...). */
  readonly params: Record<string, string>;
  /**
   * Aborted when the caller disconnects (for an upstream call: `callerSignal`, no retry outlives
   * the caller either). A cheap CallerSignal stands for it until a stage asks for this one.
   */
  readonly callerSignal: AbortSignal | CallerSignal;
  private abortSignal: AbortSignal | undefined;
  /** The route table entry served. */
  readonly endpoint: E;
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  /** x-gateway-debug: true (adds error.debug to error answers). */
  debug: boolean;
  /** Headers added to whatever the answer is, errors included. */
  responseHeaders: Record<string, string> = {};
  error: AnswerError | undefined = undefined;
  /** Credentials seen in this request; scrubbed from every error and log line. */
  secrets: string[] = [];
  private readonly rawQuery: string;
  private parsedQuery: URLSearchParams | undefined;
  private deferred: Error | undefined = undefined;
  private readonly slots: unknown[] = [];

  constructor(
    private readonly edge: ContextEdge,
    id: string,
    endpoint: E,
    req: IncomingMessage,
    res: ServerResponse,
    params: Record<string, string> | undefined,
    signal: AbortSignal | CallerSignal,
    private readonly decorate?: AnswerDecorator,
  ) {
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
    if (!(signal instanceof CallerSignal)) this.abortSignal = signal;
    const debug = req.headers['x-gateway-debug'];
    this.debug = debug === 'true' || debug === '1';
  }

  /** Aborted when the caller disconnects: no upstream call or retry outlives the caller. */
  get signal(): AbortSignal {
    if (this.abortSignal) return this.abortSignal;
    const caller = this.callerSignal as CallerSignal;
    const controller = new AbortController();
    if (caller.aborted) controller.abort(caller.reason);
    else caller.once('abort', () => controller.abort(caller.reason));
    return (this.abortSignal = controller.signal);
  }

  /** Whether the caller went away. */
  get callerGone(): boolean {
    return this.callerSignal.aborted;
  }

  /** Whether the request carries a query (the URL's, unparsed; once parsed, `query` as it is now). */
  get hasQuery(): boolean {
    const parsed = this.parsedQuery;
    return parsed === undefined ? this.rawQuery !== '' : parsed.size > 0;
  }

  /**
   * The query string's parameters (parsed on first use). A stage may change them for the stages
   * after it (held-objects asks the provider for the next page of a list), and puts them back.
   */
  get query(): URLSearchParams {
    return (this.parsedQuery ??= new URLSearchParams(this.rawQuery));
  }

  /** The authenticated caller, or null (the IDENTITY slot). */
  get identity(): Identity | null {
    return (this.slots[IDENTITY.index] as Identity | undefined) ?? null;
  }

  set identity(value: Identity | null) {
    this.slots[IDENTITY.index] = value ?? undefined;
  }

  /** The answer, once a stage made it (the RESPONSE slot). */
  get response(): GatewayResponse | undefined {
    return this.slots[RESPONSE.index] as GatewayResponse | undefined;
  }

  set response(value: GatewayResponse | undefined) {
    this.slots[RESPONSE.index] = value;
  }

  get<T>(slot: Slot<T>): T | undefined {
    return this.slots[slot.index] as T | undefined;
  }

  set<T>(slot: Slot<T>, value: T | undefined): void {
    this.slots[slot.index] = value;
  }

  has(slot: Slot<unknown>): boolean {
    return this.slots[slot.index] !== undefined;
  }

  /**
   * The headers every answer of this request carries: the request id, those the pipeline's
   * stages add (x-gateway-provider...), and ctx.responseHeaders.
   */
  answerHeaders(): Record<string, string> {
    const headers: Record<string, string> = { 'x-gateway-request-id': this.id };
    this.decorate?.(this, headers);
    const own = this.responseHeaders;
    for (const key in own) headers[key] = own[key]!;
    return headers;
  }

  /**
   * For a stage that writes the answer on the socket itself (a protocol transport): puts the
   * answer's headers on the response and marks the answer as written by the stage.
   */
  claimResponse(): ServerResponse {
    const headers = this.answerHeaders();
    for (const key in headers) this.res.setHeader(key, headers[key]!);
    this.response = DIRECT;
    return this.res;
  }

  /**
   * Answers with the contract's error body and `status`; nothing after the calling stage runs
   * (it throws: stages before it see the failure as their `next()` failing). A 429 carries
   * Retry-After: `detail.retryAfter` seconds, 1 when not given (see RejectDetail.retryAfter).
   */
  reject(status: number, detail: RejectDetail = {}): never {
    const error = this.edge.rejection(status, detail);
    const seconds = retryAfterOf(error.status, detail.retryAfter);
    // The error is this request's own (made just now): it carries the header as every 429 the gateway makes does.
    if (seconds !== undefined) Object.assign(error, { headers: { ...error.headers, 'retry-after': String(seconds) }, retryAfter: seconds });
    throw error;
  }

  /** The rejection a stage deferred (`deferRejection`): the answer of this request once the chain gets there. */
  get deferredRejection(): Error | undefined {
    return this.deferred;
  }

  /**
   * Rejects the request, but only after the stages that must see every request have run: those
   * after the calling stage whose definition sets `seesRejected` (rate-limit, so that the
   * refusal is counted and carries the X-RateLimit headers). The other stages are passed over,
   * and `error` is the answer whatever the stages that run do (their own failure included). The
   * calling stage goes on (calls next()) as if it had let the request through; a later stage may
   * not count on what it `provides`. The first deferred rejection is the one answered.
   */
  deferRejection(error: Error): void {
    this.deferred ??= error;
  }
}

export function parseBooleanHeader(value: string | string[] | undefined): boolean {
  const v = Array.isArray(value) ? value[0] : value;
  return v === 'true' || v === '1';
}

export function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}
