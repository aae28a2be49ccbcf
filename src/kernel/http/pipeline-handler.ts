import { timeOrderedUuid } from '../time-ordered-id.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { CallerSignal } from '../engine/caller-signal.js';
import { GatewayContext, type ContextEdge, type RouteDef } from '../engine/context.js';
import type { CompiledPipeline } from '../engine/pipeline-compiler.js';
import { LINE_FIELDS, QUIET, RETRIES, UPSTREAM } from '../engine/report.js';
import { defineService, type GatewayServices } from '../engine/services.js';
import { RequestError } from '../errors/request-error.js';
import { RequestLog, type RequestLine } from './request-log.js';
import { respond, writeError, type AnswerWriter } from './respond.js';
import { Router } from './router.js';
import { PARENT_SPAN, REQUEST_SPAN, TRACING } from '../engine/tracing.js';
import type { Tracing } from '../observability/tracing.js';

export type RunPipeline = (ctx: GatewayContext) => Promise<void>;

function waitClose(res: ServerResponse): Promise<void> {
  if (res.writableFinished || res.destroyed || res.closed) return Promise.resolve();
  return new Promise((resolve) => res.once('close', () => resolve()));
}

/**
 * The HTTP edge of every route: finds the route in the table, builds the request's context,
 * runs the route's compiled pipeline, writes the answer (or the error, in the contract's
 * body), then records one metrics sample and writes one log line with the request id. The
 * caller going away aborts ctx.signal (a CallerSignal until a stage asks for an AbortSignal).
 */
export class HttpEdge {
  private readonly router: Router<RouteDef>;
  private readonly catchAll: RouteDef;
  private readonly logRequests: boolean;
  /** The answer writer of each pipeline (its debug fields), made once. */
  private readonly writers = new WeakMap<CompiledPipeline, AnswerWriter>();
  private readonly plainWriter: AnswerWriter;
  private readonly requestLog: RequestLog;
  /** Set when traces are exported (observability.otlp.endpoint). */
  private readonly tracing: Tracing | undefined;

  constructor(
    private readonly services: GatewayServices,
    routes: readonly RouteDef[],
    private pipelines: Map<string, CompiledPipeline>,
    private readonly contextEdge: ContextEdge,
  ) {
    this.router = new Router(routes);
    this.catchAll = routes.find((r) => r.key === '*') ?? { method: '*', path: '*', key: '*', body: 'none' };
    this.logRequests = services.config.logging?.requests !== false;
    this.plainWriter = { mapError: services.mapError };
    this.requestLog = new RequestLog(services.logger);
    this.tracing = services.get(TRACING);
  }

  private writerFor(pipeline: CompiledPipeline | undefined): AnswerWriter {
    if (!pipeline?.debug) return this.plainWriter;
    let writer = this.writers.get(pipeline);
    if (!writer) this.writers.set(pipeline, (writer = { mapError: this.services.mapError, debug: pipeline.debug }));
    return writer;
  }

  /** The compiled pipeline of a route (by its key), for work the gateway runs itself (batch lines). */
  pipelineFor(routeKey: string): CompiledPipeline | undefined {
    return this.pipelines.get(routeKey);
  }

  /** Serves new requests with other compiled pipelines (a reload); requests in flight finish on theirs. */
  usePipelines(pipelines: Map<string, CompiledPipeline>): void {
    this.pipelines = pipelines;
  }

  /** A fresh context for one request of `route` (also used for the lines of gateway-run batches). */
  createContext<E extends RouteDef>(route: E, req: IncomingMessage, res: ServerResponse, params: Record<string, string> | undefined, signal: AbortSignal): GatewayContext<E> {
    const pipeline = this.pipelines.get(route.key);
    return new GatewayContext(this.contextEdge, timeOrderedUuid(), route, req, res, params, signal, pipeline?.decorate);
  }

  /** The node:http request listener. */
  readonly handle = (req: IncomingMessage, res: ServerResponse): void => {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const found = this.router.match(req.method ?? 'GET', q < 0 ? url : url.slice(0, q));
    const route = found?.route ?? this.catchAll;
    const pipeline = this.pipelines.get(route.key);
    const caller = new CallerSignal();
    const ctx = new GatewayContext(this.contextEdge, timeOrderedUuid(), route, req, res, found?.params, caller, pipeline?.decorate);
    // `on`: a response closes once, and `once` would keep a wrapper per request for its life.
    res.on('close', () => {
      if (!res.writableFinished) caller.abort();
    });
    if (this.tracing) this.traced(this.tracing, ctx, pipeline, found?.malformed);
    else void this.serve(ctx, pipeline, found?.malformed);
  };

  /** Serves a request inside its server span (continuing the caller's traceparent); the span ends with the answer. */
  private traced(tracing: Tracing, ctx: GatewayContext, pipeline: CompiledPipeline | undefined, malformed?: string): void {
    const span = tracing.startRequest(ctx.route === '*' ? ctx.method : ctx.route, ctx.req.headers, {
      'http.request.method': ctx.method,
      'http.route': ctx.endpoint.path,
      'url.path': ctx.path,
      'gateway.request_id': ctx.id,
    });
    ctx.set(REQUEST_SPAN, span);
    ctx.set(PARENT_SPAN, span);
    void this.serve(ctx, pipeline, malformed).then((status) => {
      span.setAttribute('http.response.status_code', status);
      if (ctx.error && status >= 400) span.fail(ctx.error.message, ctx.error.code ?? String(status));
      else if (status >= 500) span.fail(`HTTP ${status}`, String(status));
      span.end();
    });
  }

  /** Runs the pipeline, writes the answer, counts and logs it; resolves with the status answered. */
  private async serve(ctx: GatewayContext, pipeline: CompiledPipeline | undefined, malformed?: string): Promise<number> {
    const { metrics, logger, mapError } = this.services;
    const res = ctx.res;
    const writer = this.writerFor(pipeline);
    metrics.inFlight.value++;
    try {
      if (malformed) throw new RequestError(400, `The request path holds a malformed percent-encoding or a NUL (${malformed}).`, 'path');
      if (!pipeline) throw new RequestError(404, `No route ${ctx.method} ${ctx.path}.`);
      await pipeline.run(ctx);
    } catch (err) {
      ctx.error = mapError(err, ctx.get(UPSTREAM));
    }
    try {
      // Synchronous for JSON answers and errors (no promise); streams and binary bodies take their time.
      const writing = respond(ctx, writer);
      if (writing) await writing;
    } catch (err) {
      logger.error({ requestId: ctx.id, err: (err as Error)?.message }, 'failed to write the answer');
      if (!res.headersSent) {
        try {
          writeError(ctx, mapError(err), writer);
        } catch {
          res.destroy();
        }
      }
    }
    // An answer a stage writes itself (a protocol's event stream) is done when the socket says so.
    if (ctx.response?.kind === 'direct') await waitClose(res);
    metrics.inFlight.value--;
    const provider = ctx.get(UPSTREAM) ?? 'none';
    const status = ctx.error && !res.headersSent ? ctx.error.status : res.statusCode;
    const seconds = (performance.now() - ctx.startedAt) / 1000;
    metrics.recordRequest(ctx.route, provider, status, seconds);
    const observers = metrics.observers;
    for (let i = 0; i < observers.length; i++) {
      try {
        observers[i]!(ctx, status);
      } catch (err) {
        logger.warn({ requestId: ctx.id, err: (err as Error)?.message }, 'a metrics observer failed');
      }
    }
    if (this.logRequests) {
      const line: RequestLine = {
        requestId: ctx.id,
        method: ctx.method,
        route: ctx.route,
        status,
        provider,
        retries: ctx.get(RETRIES) ?? 0,
        ms: Math.round(seconds * 100000) / 100,
      };
      if (ctx.identity && ctx.identity.kind !== 'anonymous') line.user = ctx.identity.user ?? ctx.identity.id;
      if (ctx.error) line.error = ctx.error.code ?? 'error';
      if (ctx.callerGone) line.clientGone = true;
      const fields = ctx.get(LINE_FIELDS);
      if (fields) line.fields = fields;
      this.requestLog.write(ctx.has(QUIET) && !ctx.error ? 'debug' : 'info', line);
    }
    return status;
  }
}

/** The HTTP edge of this gateway (provided once the pipelines are compiled). */
export const HTTP_EDGE = defineService<HttpEdge>('http-edge');
