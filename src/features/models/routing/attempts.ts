import type { GatewayContext } from '../../../kernel/engine/context.js';
import type { GatewayError } from '../../../contract/errors/gateway-error.js';
import type { Metrics } from '../../../kernel/observability/metrics.js';
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
}

/** Adds one upstream attempt to the request's attempts (listed under error.debug) and counts failures in metrics. */
export function recordAttempt(ctx: GatewayContext<any>, target: ResolvedTarget, startedAt: number, error: GatewayError | undefined, metrics?: Metrics): void {
  const durationMs = Math.round((performance.now() - startedAt) * 100) / 100;
  const attempts = attemptsOf(ctx);
  if (error) {
    attempts.push({
      provider: target.provider,
      targetIndex: target.index,
      status: error.upstreamStatus ?? error.status,
      code: error.code,
      message: error.message,
      durationMs,
    });
    if (metrics) {
      metrics.upstreamErrors.inc({ provider: target.provider, code: error.code });
      if (error.upstreamStatus === 429) modelCounters(metrics).upstreamRateLimited.inc([target.provider]);
    }
  } else {
    attempts.push({ provider: target.provider, targetIndex: target.index, status: ctx.response && 'status' in ctx.response ? ctx.response.status : 200, durationMs });
  }
}
