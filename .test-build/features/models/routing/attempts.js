import { attemptsOf } from '../model-request.js';
/** Adds one upstream attempt to the request's attempts (listed under error.debug) and counts failures in metrics. */
export function recordAttempt(ctx, target, startedAt, error, metrics) {
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
        metrics?.upstreamErrors.inc({ provider: target.provider, code: error.code });
    }
    else {
        attempts.push({ provider: target.provider, targetIndex: target.index, status: ctx.response && 'status' in ctx.response ? ctx.response.status : 200, durationMs });
    }
}
//# sourceMappingURL=attempts.js.map