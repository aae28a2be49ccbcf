import type { ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import type { GatewayContext, GatewayResponse } from '../engine/context.js';
import { GatewayError } from '../errors/gateway-error.js';
import { toErrorBody } from '../errors/error-body.js';
import { normalizeError } from '../errors/normalize.js';
import { redactObject, redactSecrets } from '../errors/redact.js';
import { OpenAIChunkWriter, sseErrorEvent } from '../protocol/openai/chunk-writer.js';
import { PartStream } from '../protocol/part-stream.js';
import type { StreamPart } from '../protocol/stream-parts.js';

/** Headers every provider-routed answer carries. */
export function gatewayHeaders(ctx: GatewayContext): Record<string, string> {
  const headers: Record<string, string> = { 'x-gateway-request-id': ctx.id, 'x-gateway-retry-count': String(ctx.retryCount) };
  const provider = ctx.target?.provider ?? ctx.error?.provider ?? undefined;
  if (provider) headers['x-gateway-provider'] = provider;
  if (ctx.target?.index !== undefined) headers['x-gateway-target-index'] = ctx.target.index;
  for (const key in ctx.responseHeaders) headers[key] = ctx.responseHeaders[key]!;
  return headers;
}

/** The debug block of x-gateway-debug: true (credentials redacted). */
function debugInfo(ctx: GatewayContext, err: GatewayError): unknown {
  return redactObject(
    {
      upstream_status: err.upstreamStatus ?? null,
      upstream_body: err.upstreamBody ?? null,
      attempts: ctx.attempts,
      timings: { total_ms: Math.round((performance.now() - ctx.startedAt) * 100) / 100 },
      request_id: ctx.id,
    },
    ctx.secrets,
  );
}

export function errorPayload(ctx: GatewayContext, err: GatewayError) {
  err.message = redactSecrets(err.message, ctx.secrets);
  return toErrorBody(err, ctx.debug ? debugInfo(ctx, err) : undefined);
}

export function writeError(ctx: GatewayContext, err: GatewayError): void {
  const res = ctx.res;
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = JSON.stringify(errorPayload(ctx, err));
  const headers: Record<string, string> = {
    ...gatewayHeaders(ctx),
    ...err.headers,
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(body)),
  };
  res.writeHead(err.status, headers);
  res.end(body);
}

function waitDrain(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/** Writes a stream as OpenAI SSE; a failure after the first byte ends it with one error event and no [DONE]. */
async function writeStream(ctx: GatewayContext, response: Extract<GatewayResponse, { kind: 'stream' }>): Promise<void> {
  const res = ctx.res;
  res.writeHead(response.status, {
    ...gatewayHeaders(ctx),
    ...response.headers,
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  const writer = new OpenAIChunkWriter(response.format, response.includeUsage);
  // Parts that arrive together (one upstream chunk usually carries several events) leave in
  // one socket write. The forward stage's own stream hands them over in groups; a wrapped
  // stream (cache, guardrails) gives one part at a time, and its text gathers until the event
  // loop turns. The headers go out with the first write.
  let pending = '';
  let flushScheduled = false;
  let blocked: Promise<void> | undefined;
  const flush = () => {
    flushScheduled = false;
    if (!pending || res.destroyed) return;
    const text = pending;
    pending = '';
    if (!res.write(text)) blocked = waitDrain(res).then(() => (blocked = undefined));
  };
  const grouped = response.parts instanceof PartStream;
  const batches: AsyncIterable<StreamPart[]> = grouped ? (response.parts as PartStream).batches() : singleParts(response.parts);
  let completed = false;
  let wroteFirst = false;
  try {
    for await (const batch of batches) {
      if (res.destroyed) return;
      for (const part of batch) {
        const text = writer.write(part);
        if (text) pending += text;
        if (part.type === 'done') {
          completed = true;
          break;
        }
      }
      if (completed) break;
      // The first group goes out at once; later ones that arrive in the same turn of the
      // event loop share one write.
      if (grouped && !wroteFirst) {
        wroteFirst = true;
        flush();
      } else if (pending && !flushScheduled) {
        flushScheduled = true;
        setImmediate(flush);
      }
      if (blocked) await blocked;
    }
    if (!completed) {
      throw new GatewayError('provider_error', `The ${ctx.target?.provider ?? 'upstream'} stream ended before the answer was complete.`, {
        provider: ctx.target?.provider,
      });
    }
    ctx.state.usage = writer.lastUsage ?? ctx.state.usage;
    const rest = pending;
    pending = '';
    if (rest) res.end(rest);
    else res.end();
  } catch (err) {
    const normalized = normalizeError(err, ctx.target?.provider);
    ctx.error = normalized;
    const rest = pending;
    pending = '';
    if (!res.destroyed) res.end(rest + sseErrorEvent(errorPayload(ctx, normalized)));
  }
}

async function* singleParts(parts: AsyncIterable<StreamPart>): AsyncGenerator<StreamPart[]> {
  for await (const part of parts) yield [part];
}

/** The HTTP edge: writes ctx.response or ctx.error. The only place answers are written. */
export async function respond(ctx: GatewayContext): Promise<void> {
  const res = ctx.res;
  if (ctx.error || !ctx.response) {
    writeError(ctx, ctx.error ?? new GatewayError('internal_error', 'The pipeline produced no answer.'));
    return;
  }
  const response = ctx.response;
  if (res.destroyed) return;
  switch (response.kind) {
    case 'json': {
      const payload = response.raw ?? JSON.stringify(response.body);
      const length = typeof payload === 'string' ? Buffer.byteLength(payload) : payload.length;
      res.writeHead(response.status, {
        ...gatewayHeaders(ctx),
        ...response.headers,
        'content-type': 'application/json',
        'content-length': String(length),
      });
      res.end(payload);
      return;
    }
    case 'stream':
      await writeStream(ctx, response);
      return;
    case 'binary': {
      res.writeHead(response.status, { ...gatewayHeaders(ctx), ...response.headers, 'content-type': response.contentType });
      if (Buffer.isBuffer(response.body)) {
        res.end(response.body);
        return;
      }
      try {
        await pipeline(response.body, res);
      } catch {
        res.destroy();
      }
      return;
    }
  }
}
