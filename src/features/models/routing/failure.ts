import type { GatewayContext } from '../../../kernel/engine/context.js';
import { BODY } from '../../../kernel/engine/request-body.js';
import { isUpload } from '../../../kernel/http/multipart/upload-validator.js';
import { DEADLINE, UPLOAD_SENT } from '../model-request.js';
import { GatewayError } from '../../../contract/errors/gateway-error.js';
import { normalizeError } from '../../../contract/errors/normalize.js';

/** Statuses retried when a target's `retry.on_status_codes` is not given. */
export const DEFAULT_RETRY_STATUSES: readonly number[] = [429, 500, 502, 503, 504];

/** Fallback without `on_status_codes`: 429 and every 5xx. */
export function defaultFallbackStatus(status: number): boolean {
  return status === 429 || status >= 500;
}

/** The caller disconnected: nothing more is sent upstream for this request. */
export function callerGone(ctx: GatewayContext): boolean {
  return ctx.callerGone;
}

/** ms left before ctx.deadline (Infinity without one). */
export function remainingMs(ctx: GatewayContext): number {
  const deadline = ctx.get(DEADLINE);
  return deadline === undefined ? Number.POSITIVE_INFINITY : deadline - performance.now();
}

/**
 * An upload that already went upstream and cannot be sent again: no retry and no fallback
 * after its first attempt. Multipart forms checked by the validate stage are spooled and can
 * be sent again (each attempt streams them anew), so they retry and fall back like any request.
 */
export function uploadSpent(ctx: GatewayContext): boolean {
  return ctx.get(UPLOAD_SENT) === true && !isUpload(ctx.get(BODY));
}

export function deadlinePassed(ctx: GatewayContext): boolean {
  return remainingMs(ctx) <= 0;
}

export function callerGoneError(provider?: string): GatewayError {
  return new GatewayError('request_timeout', 'The caller went away; the request was cancelled.', { provider, retryable: false });
}

export function deadlineError(provider?: string): GatewayError {
  return new GatewayError('request_timeout', 'The request deadline (request_timeout) passed before an answer arrived.', { provider, retryable: false });
}

/**
 * A failure of the upstream exchange itself, as opposed to an answer the caller must see:
 * a timeout, a network error, a cut or malformed answer. Statuses are judged separately.
 */
export function isTransportFailure(err: GatewayError): boolean {
  if (err.upstreamStatus !== undefined) return false;
  return err.code === 'request_timeout' || err.code === 'provider_error';
}

/**
 * Whether a failed attempt lets routing go on to another target: an upstream status the rule
 * lists, or a timeout or network error. `statuses` undefined means the fallback default
 * (429 and every 5xx).
 */
export function isRoutingFailure(err: GatewayError, statuses?: ReadonlySet<number>): boolean {
  if (err.upstreamStatus !== undefined) {
    return statuses ? statuses.has(err.upstreamStatus) : defaultFallbackStatus(err.upstreamStatus);
  }
  return isTransportFailure(err);
}

/** Whether a failure counts against a circuit breaker (the fallback default: 5xx, 429, timeouts, network). */
export function countsForBreaker(err: unknown, ctx: GatewayContext): boolean {
  if (callerGone(ctx)) return false;
  const e = err instanceof GatewayError ? err : normalizeError(err);
  if (e.code === 'service_unavailable' && (e as CircuitOpenError).circuitOpen) return false;
  return isRoutingFailure(e);
}

/** Thrown when every target a node could use has its circuit open. */
export class CircuitOpenError extends GatewayError {
  readonly circuitOpen = true;
  constructor(message: string, retryAfterSeconds?: number) {
    super('service_unavailable', message, {
      retryable: false,
      headers: retryAfterSeconds !== undefined ? { 'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds))) } : undefined,
    });
  }
}

export function isCircuitOpen(err: unknown): err is CircuitOpenError {
  return err instanceof CircuitOpenError;
}
