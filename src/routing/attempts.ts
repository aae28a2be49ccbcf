import type { GatewayContext, ResolvedTarget } from '../engine/context.js';
import type { GatewayError } from '../errors/gateway-error.js';
import type { Metrics } from '../observability/metrics.js';

/** Adds one upstream attempt to ctx.attempts (listed under error.debug) and counts failures in metrics. */
export function recordAttempt(ctx: GatewayContext, target: ResolvedTarget, startedAt: number, error: GatewayError | undefined, metrics?: Metrics): void {
  const durationMs = Math.round((performance.now() - startedAt) * 100) / 100;
  if (error) {
    ctx.attempts.push({
      provider: target.provider,
      targetIndex: target.index,
      status: error.upstreamStatus ?? error.status,
      code: error.code,
      message: error.message,
      durationMs,
    });
    metrics?.upstreamErrors.inc({ provider: target.provider, code: error.code });
  } else {
    ctx.attempts.push({ provider: target.provider, targetIndex: target.index, status: ctx.response?.status ?? 200, durationMs });
  }
}
