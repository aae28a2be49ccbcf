import { randomBytes } from 'node:crypto';
import { createContext } from '../http/pipeline-handler.js';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import type { GatewayContext } from '../engine/context.js';
import type { CompiledPipeline } from '../engine/pipeline-compiler.js';
import { GatewayError } from '../errors/gateway-error.js';
import { normalizeError } from '../errors/normalize.js';
import { errorPayload } from '../http/respond.js';
import type { RouteSpec } from '../http/route-table.js';
import type { LineResult } from './batch-store.js';

/** A request context for one batch line, as if the caller had sent it with the batch's headers. */
function lineContext(route: RouteSpec, headers: Record<string, string>, body: string, signal: AbortSignal): GatewayContext {
  const req = new IncomingMessage(new Socket());
  const raw = Buffer.from(body, 'utf8');
  req.method = route.method;
  req.url = route.path;
  req.headers = { ...headers, 'content-type': 'application/json', 'content-length': String(raw.length) };
  const ctx = createContext(route, req, new ServerResponse(req), {}, signal);
  ctx.body = JSON.parse(body);
  ctx.rawBody = raw;
  ctx.bodyRead = true;
  ctx.state.batchLine = true;
  return ctx;
}

export interface LineOutcome {
  result: LineResult;
  /** The upstream (or a gateway limit) refused it for now: 429, with the wait it asked for. */
  rateLimited: boolean;
  retryAfter?: number;
}

/**
 * Runs one batch line through the route's compiled pipeline (authentication, validation,
 * routing, retries, the provider adapter and forward: everything a live request gets) and
 * turns what it answered into the line's result.
 */
export async function runLine(pipeline: CompiledPipeline, route: RouteSpec, headers: Record<string, string>, body: string, signal: AbortSignal): Promise<LineOutcome> {
  const ctx = lineContext(route, headers, body, signal);
  const resultId = `batch_req_${randomBytes(12).toString('hex')}`;
  try {
    await pipeline.run(ctx);
  } catch (err) {
    ctx.error = normalizeError(err, ctx.target?.provider);
  }
  const response = ctx.response;
  if (!ctx.error && response?.kind === 'json') {
    const text = response.raw ? response.raw.toString('utf8') : JSON.stringify(response.body);
    return {
      rateLimited: false,
      result: { ok: response.status < 400, resultId, statusCode: response.status, requestId: ctx.id, response: text, error: null },
    };
  }
  if (!ctx.error && response?.kind === 'stream') {
    for await (const _part of response.parts) {
      // A line never streams (checked when the batch is validated); drain what came.
    }
  }
  const err = ctx.error ?? new GatewayError('provider_error', 'The provider did not answer with JSON.', { provider: ctx.target?.provider });
  return {
    rateLimited: err.code === 'rate_limit_exceeded',
    retryAfter: err.retryAfter,
    result: {
      ok: false,
      resultId,
      statusCode: err.status,
      requestId: ctx.id,
      response: JSON.stringify(errorPayload(ctx, err)),
      error: { code: err.code, message: err.message },
    },
  };
}
