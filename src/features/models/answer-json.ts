import type { GatewayContext, JsonAnswer } from '../../kernel/engine/context.js';
import { GatewayError } from '../../contract/errors/gateway-error.js';
import { TARGET } from './model-request.js';

/** The bad answer of an upstream whose JSON answer is not JSON (502, retried and failed over like a 5xx). */
export function notJsonAnswer(provider: string | undefined): GatewayError {
  return new GatewayError('provider_error', `${provider ?? 'The provider'} sent an answer that is not JSON.`, { provider, retryable: true });
}

/**
 * A JSON answer's body for a stage that reads it: the translated body, or the upstream's bytes
 * passed through untouched, parsed here (forward never parses what only passes through). Bytes
 * that are not JSON are the upstream's bad answer (notJsonAnswer), never the gateway's 500.
 */
export function answerJson(ctx: GatewayContext, answer: JsonAnswer): unknown {
  if (answer.body !== undefined || !answer.raw) return answer.body;
  try {
    return JSON.parse(answer.raw.toString('utf8'));
  } catch {
    throw notJsonAnswer(ctx.get(TARGET)?.provider);
  }
}
