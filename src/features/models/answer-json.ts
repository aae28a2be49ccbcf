import type { GatewayContext, JsonAnswer } from '../../kernel/engine/context.js';
import { GatewayError } from '../../contract/errors/gateway-error.js';
import { TARGET } from './model-request.js';

/** The upstream's bad answer of bytes that are not JSON: 502 provider_error, retried and failed over like a 5xx. */
export function notJsonAnswer(provider: string | undefined): GatewayError {
  return new GatewayError('provider_error', `${provider ?? 'The provider'} sent an answer that is not JSON.`, { provider, retryable: true });
}

/** An upstream's JSON answer, parsed; bytes that are not JSON are its bad answer (notJsonAnswer). */
export function parsedAnswer(raw: Buffer, provider: string | undefined): unknown {
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    throw notJsonAnswer(provider);
  }
}

/**
 * A JSON answer's body for a stage that reads it: the translated body, or the upstream's bytes
 * passed through untouched, parsed here (forward never parses what only passes through). Bytes
 * that are not JSON are the upstream's bad answer (parsedAnswer), never the gateway's 500.
 */
export function answerJson(ctx: GatewayContext, answer: JsonAnswer): unknown {
  if (answer.body !== undefined || !answer.raw) return answer.body;
  return parsedAnswer(answer.raw, ctx.get(TARGET)?.provider);
}
