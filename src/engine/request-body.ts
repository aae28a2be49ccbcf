import type { IncomingMessage } from 'node:http';
import { badRequest, GatewayError } from '../errors/gateway-error.js';
import type { GatewayContext } from './context.js';

/** Reads a request body into one Buffer, refusing more than `limit` bytes. */
export function readRequestBytes(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
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
    req.once('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)));
    req.once('error', reject);
    req.once('aborted', () => reject(new GatewayError('missing_required_parameter', 'The request body was cut off.', { param: 'body' })));
  });
}

/**
 * Reads and parses the JSON body once (idempotent). Malformed JSON and a body that is not an
 * object are 400s.
 */
export async function ensureJsonBody(ctx: GatewayContext, limit: number): Promise<void> {
  if (ctx.bodyRead || ctx.route.body !== 'json') return;
  ctx.bodyRead = true;
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
  ctx.rawBody = raw;
  ctx.body = parsed;
}
