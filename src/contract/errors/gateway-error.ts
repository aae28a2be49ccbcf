import { ERROR_CATALOGUE, type ErrorCode, type ErrorType } from './catalogue.js';
import { toErrorBody, type ErrorBody } from './error-body.js';

export interface GatewayErrorOptions {
  param?: string | null;
  provider?: string | null;
  /** Extra response headers (Retry-After, WWW-Authenticate, ...). */
  headers?: Record<string, string>;
  /** Upstream status, when the error comes from an upstream answer. */
  upstreamStatus?: number;
  /** Upstream body (already redacted), shown only under x-gateway-debug. */
  upstreamBody?: unknown;
  /** Whether routing may try again elsewhere (timeouts, network errors, listed statuses). */
  retryable?: boolean;
  /** Seconds the upstream asked to wait (Retry-After). */
  retryAfter?: number;
  cause?: unknown;
}

/**
 * An error the gateway answers with: one code from the catalogue, its status follows. The HTTP
 * edge writes it through `answerBody` (the contract's body), whatever route it happens on.
 */
export class GatewayError extends Error {
  readonly code: ErrorCode;
  readonly type: ErrorType;
  readonly status: number;
  param: string | null;
  provider: string | null;
  headers: Record<string, string> | undefined;
  upstreamStatus: number | undefined;
  upstreamBody: unknown;
  retryable: boolean;
  retryAfter: number | undefined;

  constructor(code: ErrorCode, message: string, options: GatewayErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    const entry = ERROR_CATALOGUE[code];
    this.name = 'GatewayError';
    this.code = code;
    this.type = entry.type;
    this.status = entry.status;
    this.param = options.param ?? null;
    this.provider = options.provider ?? null;
    this.headers = options.headers;
    this.upstreamStatus = options.upstreamStatus;
    this.upstreamBody = options.upstreamBody;
    this.retryable = options.retryable ?? false;
    this.retryAfter = options.retryAfter;
  }

  /** The fields x-gateway-debug adds first (the rest come from the pipeline and the edge). */
  debugFields(): Record<string, unknown> {
    return { upstream_status: this.upstreamStatus ?? null, upstream_body: this.upstreamBody ?? null };
  }

  /** The contract's error body, with `debug` under x-gateway-debug. */
  answerBody(debug?: unknown): ErrorBody {
    return toErrorBody(this, debug);
  }
}

export function isGatewayError(value: unknown): value is GatewayError {
  return value instanceof GatewayError;
}

/** Shorthands for the errors raised most often. */
export const badRequest = (message: string, param?: string) => new GatewayError('missing_required_parameter', message, { param });
export const semanticError = (message: string, param?: string) => new GatewayError('semantic_error', message, { param });
export const notFound = (message: string, param?: string) => new GatewayError('not_found', message, { param });
export const conflict = (message: string, param?: string) => new GatewayError('conflict', message, { param });
export const unauthorized = (message: string) => new GatewayError('invalid_api_key', message);
export const forbidden = (message: string) => new GatewayError('insufficient_permissions', message);
/** A model name a gateway key may not use, or that does not exist: the same 404 for both (contract section 8). */
export const modelNotFound = (name: string) =>
  new GatewayError('model_not_found', `The model ${JSON.stringify(name.slice(0, 256))} does not exist or this key may not use it.`, { param: 'model' });
export const internalError = (cause?: unknown) => new GatewayError('internal_error', 'The gateway hit an unexpected error.', { cause });
