import { badRequest } from '../../../contract/errors/gateway-error.js';
import type { GatewayContext } from '../../../kernel/engine/context.js';
import { readRequestBytes } from '../../../kernel/engine/request-body.js';

/** The JSON object of an admin write (empty body: {}); a 400 for anything else or over `limit` bytes. */
export async function jsonObjectBody(ctx: GatewayContext, limit: number): Promise<Record<string, unknown>> {
  const raw = await readRequestBytes(ctx.req, limit).catch((err: Error & { status?: number }) => {
    throw err.status === 400 && /larger than/.test(err.message) ? badRequest('The request body is too large.', 'body') : err;
  });
  if (raw.length === 0) return {};
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch (err) {
    throw badRequest(`The request body is not valid JSON: ${(err as Error).message}`, 'body');
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw badRequest('The request body must be a JSON object.', 'body');
  return body as Record<string, unknown>;
}
