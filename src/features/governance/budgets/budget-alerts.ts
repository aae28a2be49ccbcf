import type { Logger } from '../../../kernel/observability/logger.js';
import type { BudgetAlertWebhook } from '../../../generated/governance/budgets-config.js';
import { usdFromMicros } from '../prices/money.js';
import type { BudgetPlan } from './budget-plan.js';

/** What an alert says (the webhook's JSON body). */
export interface BudgetAlert {
  budget: string;
  budget_id: string;
  scope: string;
  subject: string;
  threshold: number;
  /** US dollars as decimal strings (null without a money limit). */
  spent_usd: string;
  limit_usd: string | null;
  spent_tokens: number;
  limit_tokens: number | null;
  /** Unix seconds when the window resets (null: never). */
  window_reset: number | null;
}

export type AlertSink = (alert: BudgetAlert) => void;

const WEBHOOK_TIMEOUT_MS = 5000;

export function alertOf(plan: BudgetPlan, percent: number, spentMicros: number, spentTokens: number, windowReset: number | null): BudgetAlert {
  const { budget } = plan;
  return {
    budget: budget.budget.name ?? `${budget.scope} ${budget.subject}`,
    budget_id: budget.id,
    scope: budget.scope,
    subject: budget.subject,
    threshold: percent,
    spent_usd: usdFromMicros(spentMicros),
    limit_usd: plan.limitMicros === null ? null : usdFromMicros(plan.limitMicros),
    spent_tokens: spentTokens,
    limit_tokens: plan.limitTokens,
    window_reset: windowReset,
  };
}

/**
 * Alerts are logged at warn and POSTed to budgets.alertWebhook off the request path, with a
 * timeout; a failure is logged, never thrown.
 */
export function alertSink(logger: Logger, webhook: BudgetAlertWebhook | undefined, fetchFn: typeof fetch = fetch): AlertSink {
  return (alert) => {
    logger.warn({ budget: alert.budget_id, scope: alert.scope, threshold: alert.threshold, spent_usd: alert.spent_usd, limit_usd: alert.limit_usd }, 'budget alert');
    if (!webhook) return;
    setImmediate(() => {
      fetchFn(webhook.url, {
        method: 'POST',
        headers: { ...webhook.headers, 'content-type': 'application/json' },
        body: JSON.stringify(alert),
        signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS),
      })
        .then(async (res) => {
          await res.body?.cancel().catch(() => undefined);
          if (!res.ok) logger.warn({ budget: alert.budget_id, status: res.status }, 'budget alert webhook refused');
        })
        .catch((err: unknown) => logger.warn({ budget: alert.budget_id, err: (err as Error).name ?? 'error' }, 'budget alert webhook failed'));
    });
  };
}
