/**
 * What the HTTP edge answers an error with: any error that carries a status and can write its
 * body. The contract's GatewayError and plugin rejections are such errors; anything else a
 * pipeline throws is first mapped to one by the gateway's error mapping (`ErrorMapping`).
 */
export interface AnswerError {
  readonly status: number;
  /** A short machine-readable code (logged), e.g. invalid_api_key. */
  readonly code?: string;
  message: string;
  readonly headers?: Record<string, string> | undefined;
  /** Which upstream the failure concerns, when one does (logs, metrics, x-gateway-provider). */
  readonly provider?: string | null;
  /** Fields placed first in the debug block of x-gateway-debug. */
  debugFields?(): Record<string, unknown>;
  /** The body of the answer; `debug` is the debug block (x-gateway-debug), already redacted. */
  answerBody(debug?: unknown): unknown;
}

export function isAnswerError(value: unknown): value is AnswerError {
  const e = value as Partial<AnswerError> | null;
  return !!e && typeof e === 'object' && typeof e.status === 'number' && typeof e.answerBody === 'function';
}

/** Turns any failure into an answerable error; `upstream` names the upstream it concerns, when known. */
export type ErrorMapping = (err: unknown, upstream?: string) => AnswerError;
