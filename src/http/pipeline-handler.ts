import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GatewayContext } from '../engine/context.js';
import { parseBooleanHeader } from '../engine/context.js';
import type { GatewayServices } from '../engine/services.js';
import { normalizeError } from '../errors/normalize.js';
import { respond } from './respond.js';
import type { RouteSpec } from './route-table.js';

export type RunPipeline = (ctx: GatewayContext) => Promise<void>;

/** Hooks run once the answer is fully written (token counting, cache fill, audit). */
export type FinishHook = (ctx: GatewayContext) => void;

/** A fresh context for one request of `route` (also used for the lines of gateway-run batches). */
export function createContext(route: RouteSpec, req: IncomingMessage, res: ServerResponse, params: Record<string, string>, signal: AbortSignal): GatewayContext {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  return {
    id: randomUUID(),
    startedAt: performance.now(),
    route,
    req,
    res,
    headers: req.headers,
    params,
    query: new URLSearchParams(q >= 0 ? url.slice(q + 1) : ''),
    signal,
    debug: parseBooleanHeader(req.headers['x-gateway-debug']),
    body: undefined,
    bodyChanged: false,
    bodyRead: false,
    attempts: [],
    retryCount: 0,
    responseHeaders: {},
    secrets: [],
    state: {},
  };
}

/**
 * Serves one route through its compiled pipeline: builds the context, runs the chain, writes
 * the answer, then logs one line and records metrics. The caller going away aborts ctx.signal.
 */
export function createPipelineHandler(route: RouteSpec, run: RunPipeline, services: GatewayServices, finishHooks: FinishHook[] = []) {
  const { logger, metrics } = services;
  const logRequests = services.config.logging?.requests !== false;
  return (req: IncomingMessage & { params?: Record<string, string> }, res: ServerResponse): void => {
    const controller = new AbortController();
    const ctx = createContext(route, req, res, req.params ?? {}, controller.signal);
    res.once('close', () => {
      if (!res.writableFinished) controller.abort();
    });
    metrics.inFlight.inc();
    run(ctx)
      .catch((err) => {
        ctx.error = normalizeError(err, ctx.target?.provider);
      })
      .then(() => respond(ctx))
      .catch((err) => {
        logger.error({ requestId: ctx.id, err: (err as Error)?.message }, 'failed to write the answer');
        if (!res.headersSent) res.destroy();
      })
      .finally(() => {
        metrics.inFlight.dec();
        const provider = ctx.target?.provider ?? 'none';
        const status = ctx.error && !res.headersSent ? ctx.error.status : res.statusCode;
        const seconds = (performance.now() - ctx.startedAt) / 1000;
        metrics.recordRequest(route.key, provider, status, seconds);
        for (const hook of finishHooks) {
          try {
            hook(ctx);
          } catch (err) {
            logger.warn({ requestId: ctx.id, err: (err as Error).message }, 'finish hook failed');
          }
        }
        if (logRequests) {
          logger.info(
            {
              requestId: ctx.id,
              method: req.method,
              route: route.key,
              status,
              provider,
              retries: ctx.retryCount,
              ms: Math.round(seconds * 100000) / 100,
              ...(ctx.identity ? { user: ctx.identity.user ?? ctx.identity.id } : {}),
              ...(ctx.error ? { error: ctx.error.code } : {}),
              ...(controller.signal.aborted ? { clientGone: true } : {}),
            },
            'request',
          );
        }
      });
  };
}
