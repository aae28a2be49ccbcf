import { randomBytes } from 'node:crypto';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import type { CompiledPipeline } from '../../kernel/engine/pipeline-compiler.js';
import { BODY, RAW_BODY } from '../../kernel/engine/request-body.js';
import type { HttpEdge } from '../../kernel/http/pipeline-handler.js';
import { errorPayload } from '../../kernel/http/respond.js';
import { GatewayError } from '../../contract/errors/gateway-error.js';
import { normalizeError } from '../../contract/errors/normalize.js';
import type { RouteSpec } from '../../contract/routes.js';
import { answerJson, BATCH_LINE, TARGET, type ModelContext } from '../models/index.js';
import type { LineResult } from './batch-store.js';
import { markOwnRequestSocket } from '../auth/index.js';

/**
 * The socket of a line's request: no connection, marked as the gateway's own request, so that
 * the credential the batch was made with, which came in over a transport the gateway accepted,
 * is not refused as one sent over plain HTTP.
 */
function lineSocket(): Socket {
  const socket = new Socket();
  markOwnRequestSocket(socket);
  return socket;
}

/** A request context for one batch line, as if the caller had sent it with the batch's headers. */
function lineContext(edge: HttpEdge, route: RouteSpec, headers: Record<string, string>, body: string, signal: AbortSignal): ModelContext {
  const req = new IncomingMessage(lineSocket());
  const raw = Buffer.from(body, 'utf8');
  req.method = route.method;
  req.url = route.path;
  req.headers = { ...headers, 'content-type': 'application/json', 'content-length': String(raw.length) };
  const ctx = edge.createContext(route, req, new ServerResponse(req), {}, signal);
  ctx.set(BODY, JSON.parse(body));
  ctx.set(RAW_BODY, raw);
  ctx.set(BATCH_LINE, true);
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
export async function runLine(
  edge: HttpEdge,
  pipeline: CompiledPipeline,
  route: RouteSpec,
  headers: Record<string, string>,
  body: string,
  signal: AbortSignal,
): Promise<LineOutcome> {
  const ctx = lineContext(edge, route, headers, body, signal);
  const resultId = `batch_req_${randomBytes(12).toString('hex')}`;
  try {
    await pipeline.run(ctx);
  } catch (err) {
    ctx.error = normalizeError(err, ctx.get(TARGET)?.provider);
  }
  const response = ctx.response;
  if (!ctx.error && response?.kind === 'json') {
    try {
      // Bytes that are not JSON cannot be the body of an output line (which embeds them as they are): the upstream's bad answer, as for a request.
      if (response.raw) answerJson(ctx, response);
      const text = response.raw ? response.raw.toString('utf8') : JSON.stringify(response.body);
      return {
        rateLimited: false,
        result: { ok: response.status < 400, resultId, statusCode: response.status, requestId: ctx.id, response: text, error: null },
      };
    } catch (err) {
      ctx.error = normalizeError(err, ctx.get(TARGET)?.provider);
    }
  }
  if (!ctx.error && response?.kind === 'stream') {
    for await (const _part of response.parts) {
      // A line never streams (checked when the batch is validated); drain what came.
    }
  }
  const err = ctx.error ?? new GatewayError('provider_error', 'The provider did not answer with JSON.', { provider: ctx.get(TARGET)?.provider });
  const code = err.code ?? 'provider_error';
  return {
    rateLimited: code === 'rate_limit_exceeded',
    retryAfter: (err as GatewayError).retryAfter,
    result: {
      ok: false,
      resultId,
      statusCode: err.status,
      requestId: ctx.id,
      response: JSON.stringify(errorPayload(ctx, err)),
      error: { code, message: err.message },
    },
  };
}
