import type { ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import type { BinaryAnswer, EncodedSink, EncodedStream, GatewayContext, StreamAnswer, StreamEncoder } from '../engine/context.js';
import type { AnswerError, ErrorMapping } from '../errors/answer-error.js';
import { pullInto } from '../engine/pull-into.js';
import { answerBytesRedactor, holdsSecrets, redactAnswer, redactAnswerBytes, redactingStream, redactObject, redactSecrets } from '../errors/redact.js';

/**
 * Every answer leaves through the one redactor (kernel/errors/redact.ts): the gateway's secrets
 * and the request's (ctx.secrets) are masked in JSON answers, stream flushes, the error event
 * that ends a failed stream, error messages and debug blocks, and text bodies. Text without a
 * secret passes as it is (one native search per secret, no copy).
 */

/** Content types of answers read as text (masked for secrets); everything else passes as bytes. */
const TEXTUAL = /^(text\/|application\/(json|[\w.+-]*\+json|xml|x-ndjson|jsonl))/i;

/** What the edge needs besides the context: the pipeline's debug fields and the error mapping. */
export interface AnswerWriter {
  mapError: ErrorMapping;
  /** Fields the pipeline's stages add to error.debug (attempts...). */
  debug?: (ctx: GatewayContext) => Record<string, unknown>;
}

/** The debug block of x-gateway-debug: true (credentials redacted). */
function debugInfo(ctx: GatewayContext, err: AnswerError, writer: AnswerWriter): unknown {
  return redactObject(
    {
      ...err.debugFields?.(),
      ...writer.debug?.(ctx),
      timings: { total_ms: Math.round((performance.now() - ctx.startedAt) * 100) / 100 },
      request_id: ctx.id,
    },
    ctx.secrets,
  );
}

/** The error's body as the answer carries it: message redacted, debug block under x-gateway-debug. */
export function errorPayload(ctx: GatewayContext, err: AnswerError, writer?: AnswerWriter): unknown {
  err.message = redactSecrets(err.message, ctx.secrets);
  return err.answerBody(ctx.debug && writer ? debugInfo(ctx, err, writer) : undefined);
}

export function writeError(ctx: GatewayContext, err: AnswerError, writer: AnswerWriter): void {
  const res = ctx.res;
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = redactAnswer(JSON.stringify(errorPayload(ctx, err, writer)), ctx.secrets);
  const headers = ctx.answerHeaders();
  if (err.headers) for (const key in err.headers) headers[key] = err.headers[key]!;
  headers['content-type'] = 'application/json';
  headers['content-length'] = String(Buffer.byteLength(body));
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

/**
 * Writes a stream of parts through its encoder; a failure after the first byte ends it with one
 * error event (the encoder's `failure`) and nothing else.
 */
function writeStream(ctx: GatewayContext, response: StreamAnswer, writer: AnswerWriter): Promise<void> {
  const headers = ctx.answerHeaders();
  if (response.headers) for (const key in response.headers) headers[key] = response.headers[key]!;
  headers['content-type'] = response.contentType ?? 'text/event-stream; charset=utf-8';
  headers['cache-control'] = 'no-cache';
  headers.connection = 'keep-alive';
  headers['x-accel-buffering'] = 'no';
  ctx.res.writeHead(response.status, headers);
  const encoder = response.encoder();
  const source = response.parts as AsyncIterable<unknown> & Partial<EncodedStream> & { batches?: () => AsyncIterable<unknown[]> };
  return typeof source.encoded === 'function' ? writeEncoded(ctx, source as EncodedStream, encoder, writer) : writeParts(ctx, source, encoder, writer);
}

/** Writes parts through the stream's encoder (see writeStream). */
async function writeParts(
  ctx: GatewayContext,
  source: AsyncIterable<unknown> & { batches?: () => AsyncIterable<unknown[]> },
  encoder: StreamEncoder<unknown>,
  writer: AnswerWriter,
): Promise<void> {
  const res = ctx.res;
  // Parts that arrive together (one upstream read, which may carry several events) leave in
  // one socket write. A stream with batches() hands them over in groups; a wrapped stream
  // (cache, guardrails) gives one part at a time, and its text gathers until the event loop
  // turns. The headers go out with the first write.
  let pending = '';
  let flushScheduled = false;
  let blocked: Promise<void> | undefined;
  const flush = () => {
    flushScheduled = false;
    if (!pending || res.destroyed) return;
    const text = redactAnswer(pending, ctx.secrets);
    pending = '';
    if (!res.write(text)) blocked = waitDrain(res).then(() => (blocked = undefined));
  };
  const grouped = typeof source.batches === 'function';
  const batches = (grouped ? source.batches!() : singleParts(source))[Symbol.asyncIterator]();
  let completed = false;
  // Whether the parts ended by themselves (else they are told to stop, without waiting for them).
  let over = false;
  try {
    for (;;) {
      let step: IteratorResult<unknown[]>;
      try {
        step = await batches.next();
      } catch (err) {
        over = true;
        throw err;
      }
      if (step.done) {
        over = true;
        break;
      }
      const batch = step.value;
      if (res.destroyed) return;
      for (const part of batch) {
        const text = encoder.write(part);
        if (text) pending += text;
        if (encoder.isEnd(part)) {
          completed = true;
          break;
        }
      }
      if (completed) break;
      // A group (the parts of one upstream read) goes out at once: the writes of one turn of the
      // event loop leave in one socket write (the response corks until the next tick). Single
      // parts gather until the event loop turns.
      if (grouped) flush();
      else if (pending && !flushScheduled) {
        flushScheduled = true;
        setImmediate(flush);
      }
      if (blocked) await blocked;
    }
    if (!completed) throw encoder.incomplete();
    encoder.completed?.();
    const rest = pending && redactAnswer(pending, ctx.secrets);
    pending = '';
    if (rest) res.end(rest);
    else res.end();
  } catch (err) {
    const failure = writer.mapError(err);
    ctx.error = failure;
    const rest = pending;
    pending = '';
    if (!res.destroyed) res.end(redactAnswer(rest + encoder.failure(errorPayload(ctx, failure, writer)), ctx.secrets));
  } finally {
    if (!over) batches.return?.().catch(ignore);
  }
}

const ignore = () => undefined;

/**
 * A stream whose text is ready-made (an upstream's bytes in the answer's own format), when no
 * stage wrapped it: each chunk is written as it comes, the last one with the answer's end. A
 * source that pushes (EncodedStream.pushTo) writes in the turn of the event loop that read the
 * chunk (no promise or generator per chunk); any other is pulled.
 */
async function writeEncoded(ctx: GatewayContext, source: EncodedStream, encoder: StreamEncoder<unknown>, writer: AnswerWriter): Promise<void> {
  const res = ctx.res;
  const sink = new ResponseSink(res, answerBytesRedactor(ctx.secrets));
  try {
    await (typeof source.pushTo === 'function' ? source.pushTo(sink) : pullInto(source.encoded(), () => source.ended, sink));
    if (sink.completed) encoder.completed?.();
    else if (!res.destroyed) throw encoder.incomplete();
  } catch (err) {
    const failure = writer.mapError(err);
    ctx.error = failure;
    if (!res.destroyed && !sink.completed) res.end(redactAnswer(encoder.failure(errorPayload(ctx, failure, writer)), ctx.secrets));
  }
}

/** The caller's socket as a pushed stream's sink (a class: one hidden class for every stream). */
class ResponseSink implements EncodedSink {
  /** The chunk holding the answer's end was written. */
  completed = false;

  constructor(
    private readonly res: ServerResponse,
    private readonly redact: (chunk: Buffer) => Buffer,
  ) {}

  write(chunk: Buffer, last: boolean): boolean {
    const res = this.res;
    if (res.destroyed) return false;
    const bytes = this.redact(chunk);
    if (!last) return res.write(bytes);
    this.completed = true;
    res.end(bytes);
    return true;
  }

  onDrain(resume: () => void): void {
    void waitDrain(this.res).then(resume);
  }

  closed(): boolean {
    return this.res.destroyed;
  }
}

async function* singleParts(parts: AsyncIterable<unknown>): AsyncGenerator<unknown[]> {
  for await (const part of parts) yield [part];
}

/**
 * The HTTP edge: writes ctx.response or ctx.error, for every route. The only place answers are
 * written (besides a stage that claimed the response for a protocol transport).
 */
export function respond(ctx: GatewayContext, writer: AnswerWriter): Promise<void> | undefined {
  const res = ctx.res;
  const response = ctx.response;
  if (ctx.error || !response) {
    writeError(ctx, ctx.error ?? writer.mapError(new Error('The pipeline produced no answer.')), writer);
    return undefined;
  }
  if (res.destroyed) return undefined;
  switch (response.kind) {
    case 'json': {
      // A provider may echo a credential (its key in an answer): masked, at the cost of a search when none is there.
      const payload = response.raw ? redactAnswerBytes(response.raw, ctx.secrets) : redactAnswer(JSON.stringify(response.body), ctx.secrets);
      const length = typeof payload === 'string' ? Buffer.byteLength(payload) : payload.length;
      const headers = ctx.answerHeaders();
      if (response.headers) for (const key in response.headers) headers[key] = response.headers[key]!;
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(length);
      res.writeHead(response.status, headers);
      res.end(payload);
      return undefined;
    }
    case 'stream':
      return writeStream(ctx, response, writer);
    case 'binary':
      return writeBinary(ctx, response);
    case 'empty': {
      const headers = ctx.answerHeaders();
      if (response.headers) for (const key in response.headers) headers[key] = response.headers[key]!;
      res.writeHead(response.status, headers);
      res.end();
      return undefined;
    }
    case 'direct':
      return undefined;
  }
}

/** A binary answer: a Buffer at once, a node stream piped (text masked for secrets either way). */
async function writeBinary(ctx: GatewayContext, response: BinaryAnswer): Promise<void> {
  const res = ctx.res;
  const headers = ctx.answerHeaders();
  if (response.headers) for (const key in response.headers) headers[key] = response.headers[key]!;
  headers['content-type'] = response.contentType;
  // Text an upstream wrote (a transcription as text, subtitles) is masked like any answer; bytes are not.
  const text = TEXTUAL.test(response.contentType);
  if (Buffer.isBuffer(response.body)) {
    const body = text ? redactAnswerBytes(response.body, ctx.secrets) : response.body;
    if (body !== response.body) headers['content-length'] = String(body.length);
    res.writeHead(response.status, headers);
    res.end(body);
    return;
  }
  // A masked stream may change length: its length is then the one the chunks give.
  if (text && holdsSecrets(ctx.secrets)) delete headers['content-length'];
  res.writeHead(response.status, headers);
  try {
    if (text) await pipeline(response.body, redactingStream(ctx.secrets), res);
    else await pipeline(response.body, res);
  } catch {
    res.destroy();
  }
}
