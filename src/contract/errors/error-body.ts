/** What an error answer says about itself; a GatewayError or a plugin's rejection. */
export interface ErrorFacts {
  message: string;
  type: string;
  code: string;
  param: string | null;
  provider: string | null;
}

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
export function toErrorBody(err: ErrorFacts, debug?: unknown): ErrorBody {
  const body: ErrorBody = {
    status: 'failure',
    message: err.message,
    error: { type: err.type, code: err.code, message: err.message, param: err.param, provider: err.provider },
  };
  if (debug !== undefined) body.error.debug = debug;
  return body;
}
