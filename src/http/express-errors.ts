import { randomUUID } from 'node:crypto';
import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import { GatewayError, badRequest, notFound } from '../errors/gateway-error.js';
import { toErrorBody } from '../errors/error-body.js';
import { normalizeError } from '../errors/normalize.js';
import type { Logger } from '../observability/logger.js';

/** Writes a gateway error in the contract's shape from an express handler. */
export function sendError(res: Response, err: GatewayError): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.status(err.status);
  if (err.headers) for (const [k, v] of Object.entries(err.headers)) res.setHeader(k, v);
  if (!res.getHeader('x-gateway-request-id')) res.setHeader('x-gateway-request-id', randomUUID());
  res.json(toErrorBody(err));
}

/** Unknown routes: 404 in the contract's shape. */
export const notFoundHandler: RequestHandler = (req, res) => {
  sendError(res, notFound(`No route ${req.method} ${req.path}.`));
};

/** Anything an express handler throws ends here, as a contract error. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err, _req, res, _next) => {
    let out: GatewayError;
    if (err instanceof GatewayError) out = err;
    else if (err?.type === 'entity.parse.failed') out = badRequest(`The request body is not valid JSON: ${err.message}`, 'body');
    else if (err?.type === 'entity.too.large') out = badRequest('The request body is too large.', 'body');
    else {
      out = normalizeError(err);
      if (out.code === 'internal_error') logger.error({ err: err?.message, stack: err?.stack }, 'unexpected error');
    }
    sendError(res, out);
  };
}
