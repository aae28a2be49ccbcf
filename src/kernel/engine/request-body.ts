import type { IncomingMessage } from 'node:http';
import { badRequest, RequestError } from '../errors/request-error.js';
import { headerValue, type GatewayContext } from './context.js';
import { spliceJsonMembers } from '../text/json-splice.js';
import { defineSlot } from './slot.js';

/**
 * The request body: the parsed JSON object (fields unknown until the reader narrows them, or
 * reads it as its route's request type once validate has checked it), or the upload of a
 * multipart route (a MultipartUpload, told apart by isUpload; its fields read as unknown too).
 */
export const BODY = defineSlot<Record<string, unknown>>('body', 'the request body', { edge: true });
/** The JSON body's bytes as received (or with members set in them: setBodyMembers); sent upstream as they are while BODY_CHANGED is unset. */
export const RAW_BODY = defineSlot<Buffer>('raw-body', 'the raw request body', { edge: true });
/** Set once a stage changed the parsed body (override_params, redaction): the bytes no longer match. */
export const BODY_CHANGED = defineSlot<true>('body-changed', 'a changed-body flag');
/** The x-gateway-metadata header as an object (parsed on first use). */
export const METADATA = defineSlot<Record<string, unknown>>('metadata', 'the request metadata', { edge: true });

/**
 * The body's bytes to send upstream, with top-level `members` set in them (a target's
 * override_params), while no stage changed the body; undefined when the body is to be
 * serialized instead (changed, not JSON, or bytes that cannot take the members: see spliceJsonMembers).
 */
export function rawBodyWith(ctx: GatewayContext, members?: Record<string, unknown>): Buffer | undefined {
  if (ctx.has(BODY_CHANGED)) return undefined;
  const raw = ctx.get(RAW_BODY);
  if (!raw || !members) return raw;
  return ctx.get(BODY) ? spliceJsonMembers(raw, members) : undefined;
}

/**
 * Sets top-level members of the JSON body: in BODY, and in the bytes that go upstream where they
 * can take them (the caller's bytes are not serialized again); else BODY_CHANGED is set.
 */
export function setBodyMembers(ctx: GatewayContext, members: Record<string, unknown>): void {
  const raw = rawBodyWith(ctx, members);
  ctx.set(BODY, { ...ctx.get(BODY), ...members });
  if (raw) ctx.set(RAW_BODY, raw);
  else ctx.set(BODY_CHANGED, true);
}

/** Reads a request body into one Buffer, refusing more than `limit` bytes. */
export function readRequestBytes(req: IncomingMessage, limit: number): Promise<Buffer> {
  // The whole body is here already (it came with the headers), nothing read yet: taken at once,
  // the rest of the request (its end) left to flow.
  const declared = Number(req.headers['content-length']);
  if (declared > 0 && declared <= limit && req.readableLength === declared && req.readableFlowing === null && !req.readableEncoding) {
    const body = req.read() as Buffer | null;
    if (body) {
      req.resume();
      return Promise.resolve(body);
    }
  }
  return new Promise((resolve, reject) => {
    if (declared > limit) {
      req.resume();
      reject(badRequest(`The request body is larger than ${limit} bytes.`, 'body'));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.removeAllListeners('data');
        req.resume();
        reject(badRequest(`The request body is larger than ${limit} bytes.`, 'body'));
        return;
      }
      chunks.push(chunk);
    });
    req.once('end', () => {
      const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
      // The listeners (and this array through them) stay on the request for its life, a stream's
      // included: the chunks are let go, not kept beside their copy.
      chunks.length = 0;
      resolve(body);
    });
    req.once('error', reject);
    req.once('aborted', () => reject(new RequestError(400, 'The request body was cut off.', 'body')));
  });
}

/**
 * Reads and parses the JSON body of a JSON route once (idempotent: later calls find it in the
 * BODY slot). Malformed JSON and a body that is not an object are 400s.
 */
export function ensureJsonBody(ctx: GatewayContext, limit: number): Promise<void> | undefined {
  // Read once: later calls get undefined (nothing to wait for; `await` of it is harmless).
  return ctx.endpoint.body !== 'json' || ctx.has(BODY) ? undefined : readJsonBody(ctx, limit);
}

async function readJsonBody(ctx: GatewayContext, limit: number): Promise<void> {
  const raw = await readRequestBytes(ctx.req, limit);
  if (raw.length === 0) throw badRequest('The request body is empty; a JSON object is required.', 'body');
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch (err) {
    throw badRequest(`The request body is not valid JSON: ${(err as Error).message}`, 'body');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw badRequest('The request body must be a JSON object.', 'body');
  }
  ctx.set(RAW_BODY, raw);
  ctx.set(BODY, parsed as Record<string, unknown>);
}

/**
 * The x-gateway-metadata header (a JSON object) of this request, parsed once; {} without one.
 * Throws a 400 naming the header when it is not a JSON object.
 */
export function requestMetadata(ctx: GatewayContext): Record<string, unknown> {
  const known = ctx.get(METADATA);
  if (known) return known;
  let metadata: Record<string, unknown> = {};
  const raw = headerValue(ctx.headers, 'x-gateway-metadata');
  if (raw) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      throw badRequest('x-gateway-metadata must be a JSON object.', 'x-gateway-metadata');
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw badRequest('x-gateway-metadata must be a JSON object.', 'x-gateway-metadata');
    }
    metadata = parsed as Record<string, unknown>;
  }
  ctx.set(METADATA, metadata);
  return metadata;
}
