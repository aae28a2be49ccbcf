import pRetry from 'p-retry';
import type { RetryConfig } from '../../../generated/routing.js';
import type { RetryStageConfig } from '../../../generated/stages/retry.js';
import { schemaDocument } from '../../../kernel/config/schema-validator.js';
import { abortableWait } from '../../../kernel/engine/abortable-wait.js';
import type { GatewayContext } from '../../../kernel/engine/context.js';
import { defineStage } from '../../../kernel/engine/stage.js';
import { GatewayError } from '../../../contract/errors/gateway-error.js';
import { normalizeError } from '../../../contract/errors/normalize.js';
import { TARGET, ATTEMPTS, DEADLINE, UPLOAD_SENT } from '../model-request.js';
import type { ResolvedTarget } from '../providers/provider.js';
import { recordAttempt } from '../routing/attempts.js';
import { callerGone, callerGoneError, DEFAULT_RETRY_STATUSES, deadlinePassed, isTransportFailure, remainingMs, uploadSpent } from '../routing/failure.js';
import { BODY } from '../../../kernel/engine/request-body.js';
import { RESPONSE } from '../../../kernel/engine/context.js';
import { RETRIES } from '../../../kernel/engine/report.js';

/** Exponential backoff with "equal jitter": half the step fixed, half random. */
export function backoffDelay(retryIndex: number, initialMs: number, maxMs: number, random: () => number = Math.random): number {
  const step = Math.min(maxMs, initialMs * 2 ** retryIndex);
  return step / 2 + random() * (step / 2);
}

/**
 * Retries the current target (the target's retry, inherited from the routing config; the
 * stage config is the default for requests without one): `attempts` extra tries on the
 * listed statuses (default 429, 500, 502, 503, 504), timeouts and network errors, with
 * exponential backoff and jitter, or the upstream's Retry-After when use_retry_after_header
 * is set. A wait that would end past the request's deadline is not started (the failure is
 * answered, or routing falls back); a caller who goes away cuts any wait short and no
 * further try starts.
 */
export default defineStage<RetryStageConfig>({
  name: 'retry',
  description: 'Retries failed upstream attempts with backoff, within the request deadline.',
  schema: schemaDocument('stages/retry.schema.json'),
  requires: [TARGET],
  repeats: true,
  reads: [DEADLINE, BODY, UPLOAD_SENT, ATTEMPTS],
  writes: [ATTEMPTS, RETRIES, RESPONSE],
  create(config, services) {
    const initialMs = config.initialDelayMs ?? 100;
    const maxMs = config.maxDelayMs ?? 2000;
    const maxRetryAfterMs = config.maxRetryAfterMs ?? 60_000;
    const fallbackRetry: RetryConfig | undefined = config.attempts
      ? { attempts: config.attempts, on_status_codes: config.on_status_codes, use_retry_after_header: config.use_retry_after_header }
      : undefined;
    const defaultStatuses = new Set(DEFAULT_RETRY_STATUSES);

    function retryable(err: GatewayError, statuses: ReadonlySet<number>, ctx: GatewayContext): boolean {
      if (callerGone(ctx) || deadlinePassed(ctx) || uploadSpent(ctx)) return false;
      if (err.upstreamStatus !== undefined) return statuses.has(err.upstreamStatus);
      return isTransportFailure(err);
    }

    /** The attempts of a target that retries. */
    const retried = async (ctx: GatewayContext, next: () => Promise<void>, target: ResolvedTarget, retry: RetryConfig, extra: number): Promise<void> => {
      const statuses = retry!.on_status_codes ? new Set(retry!.on_status_codes) : defaultStatuses;
      const useRetryAfter = retry!.use_retry_after_header === true;
      try {
        await pRetry(
          async () => {
            const startedAt = performance.now();
            ctx.response = undefined;
            try {
              await next();
            } catch (err) {
              const failure = err instanceof GatewayError ? err : normalizeError(err, target.provider);
              recordAttempt(ctx, target!, startedAt, failure, services);
              throw failure;
            }
            recordAttempt(ctx, target!, startedAt, undefined);
          },
          {
            retries: extra,
            minTimeout: 0,
            factor: 1,
            signal: ctx.signal,
            shouldRetry: async ({ error, retriesConsumed }) => {
              const failure = error as GatewayError;
              if (!retryable(failure, statuses, ctx)) return false;
              let wait: number;
              if (useRetryAfter && failure.retryAfter !== undefined) {
                wait = failure.retryAfter * 1000;
                if (wait > maxRetryAfterMs) return false;
              } else {
                wait = backoffDelay(retriesConsumed, initialMs, maxMs);
              }
              if (wait >= remainingMs(ctx)) return false;
              if (wait > 0) await abortableWait(wait, ctx.signal);
              return !callerGone(ctx) && !deadlinePassed(ctx);
            },
          },
        );
      } catch (err) {
        if (callerGone(ctx)) throw callerGoneError(target!.provider);
        throw err;
      }
    };
    // Without retries for this target, next() is the stage's own answer (no promise of its own).
    return (ctx, next) => {
      const target = ctx.get(TARGET);
      const retry = target?.retry ?? fallbackRetry;
      const extra = retry?.attempts ?? 0;
      if (!target || !retry || extra <= 0) return next();
      return retried(ctx, next, target, retry, extra);
    };
  },
});
