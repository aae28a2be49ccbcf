import type { GatewayContext } from '../../../kernel/engine/context.js';
import { RETRIES } from '../../../kernel/engine/report.js';
import type { GatewayServices } from '../../../kernel/engine/services.js';
import type { GatewayError } from '../../../contract/errors/gateway-error.js';
import type { ResolvedTarget } from '../providers/provider.js';
import { attemptsOf } from '../model-request.js';
import { modelCounters } from '../metrics/model-metrics.js';

export interface AttemptRecord {
  provider: string;
  targetIndex?: string;
  status?: number;
  code?: string;
  message?: string;
  durationMs: number;
  /** Set when the target was not called: `circuit_open` (its circuit breaker is open). */
  skipped?: 'circuit_open';
}

/**
 * x-gateway-retry-count: the upstream attempts after the first, across retries and fallbacks
 * (the attempts listed under error.debug, less targets skipped for an open circuit, less one).
 */
function countRetries(ctx: GatewayContext, attempts: readonly AttemptRecord[]): void {
  let tried = 0;
  for (let i = 0; i < attempts.length; i++) if (!attempts[i]!.skipped) tried++;
  ctx.set(RETRIES, tried > 0 ? tried - 1 : 0);
}

/**
 * Adds one upstream attempt to the request's attempts (listed under error.debug, and on the
 * request's log line); a failed one is counted in metrics and written as a warning line.
 */
export function recordAttempt(ctx: GatewayContext, target: ResolvedTarget, startedAt: number, error: GatewayError | undefined, services?: GatewayServices): void {
  const durationMs = Math.round((performance.now() - startedAt) * 100) / 100;
  const attempts = attemptsOf(ctx);
  if (error) {
    const status = error.upstreamStatus ?? error.status;
    attempts.push({ provider: target.provider, targetIndex: target.index, status, code: error.code, message: error.message, durationMs });
    if (services) {
      const metrics = services.metrics;
      metrics.upstreamErrors.inc({ provider: target.provider, code: error.code });
      if (error.upstreamStatus === 429) modelCounters(metrics).upstreamRateLimited.inc([target.provider]);
      services.logger.warn({ requestId: ctx.id, provider: target.provider, target: target.index, status, reason: error.code, ms: durationMs }, 'upstream attempt failed');
    }
  } else {
    attempts.push({ provider: target.provider, targetIndex: target.index, status: ctx.response && 'status' in ctx.response ? ctx.response.status : 200, durationMs });
  }
  countRetries(ctx, attempts);
}

/** Adds a target skipped because its circuit is open to the request's attempts (not an upstream attempt). */
export function recordCircuitSkip(ctx: GatewayContext, target: ResolvedTarget, services: GatewayServices): void {
  attemptsOf(ctx).push({ provider: target.provider, targetIndex: target.index, status: 503, code: 'circuit_open', durationMs: 0, skipped: 'circuit_open' });
  services.logger.debug({ requestId: ctx.id, provider: target.provider, target: target.index, reason: 'circuit_open' }, 'target skipped: circuit open');
}
