import type { GatewayError } from './gateway-error.js';

export interface ErrorBody {
  status: 'failure';
  message: string;
  error: {
    type: string;
    code: string;
    message: string;
    param: string | null;
    provider: string | null;
    debug?: unknown;
  };
}

/** The contract's error body for a gateway error; `debug` only under x-gateway-debug. */
export function toErrorBody(err: GatewayError, debug?: unknown): ErrorBody {
  const body: ErrorBody = {
    status: 'failure',
    message: err.message,
    error: { type: err.type, code: err.code, message: err.message, param: err.param, provider: err.provider },
  };
  if (debug !== undefined) body.error.debug = debug;
  return body;
}
