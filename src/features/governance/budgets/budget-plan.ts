import { BUDGET_SCOPES, type ApplicableBudget } from '../governance-types.js';
import type { Budget, BudgetWindow } from '../../../generated/governance/budget.js';
import { compileWindow, type CompiledWindow } from './budget-window.js';

/** One applicable budget at one instant, as every backend checks it. */
export interface BudgetPlan {
  budget: ApplicableBudget;
  id: string;
  series: string;
  /** Window indexes counted (inclusive); settled spend goes to `to`. */
  from: number;
  to: number;
  /** Calendar: Unix seconds of the reset (null: total). Rolling: computed from the oldest counted bucket. */
  resetAt: number | null;
  bucketMs?: number;
  /** Whole microdollars; null: no money limit. */
  limitMicros: number | null;
  limitTokens: number | null;
  block: boolean;
  /** The alert window: an alert is sent once per (budget, alertWindow, threshold). */
  alertWindow: number;
  /** Alert thresholds: percent and the spend (microdollars, or tokens without a money limit) it stands for. */
  alerts: Array<{ percent: number; level: number }>;
}

/** Compiled windows by (period, kind, zone): shared by every budget that has the same window. */
const windows = new Map<string, CompiledWindow>();
/** The compiled window of each budget object met (found without a key made per request). */
const byBudget = new WeakMap<Budget, CompiledWindow>();

/** A budget's compiled window: compiled once per (period, kind, zone), then found by the budget object itself. */
export function windowOfBudget(budget: Budget): CompiledWindow {
  const known = byBudget.get(budget);
  if (known) return known;
  const window: BudgetWindow | undefined = budget.window;
  const key = `${window?.period ?? 'month'}|${window?.kind ?? 'calendar'}|${window?.timezone ?? 'UTC'}`;
  let w = windows.get(key);
  if (!w) {
    if (windows.size > 10_000) windows.clear();
    w = compileWindow(window);
    windows.set(key, w);
  }
  byBudget.set(budget, w);
  return w;
}

const SCOPE_ORDER = new Map<string, number>(BUDGET_SCOPES.map((s, i) => [s, i]));

/** `limit_usd` (the one float of money, as configured) as whole microdollars. */
export function microsOfUsd(usd: number): number {
  return Math.round(usd * 1_000_000);
}

/** The budgets' plans at `nowMs`, in the order refusals name them (scope order of BUDGET_SCOPES, then as given). */
export function plansOf(budgets: readonly ApplicableBudget[], nowMs: number): BudgetPlan[] {
  const plans = budgets.map((b) => planOf(b, nowMs));
  return plans.length > 1 ? plans.sort((a, b) => SCOPE_ORDER.get(a.budget.scope)! - SCOPE_ORDER.get(b.budget.scope)!) : plans;
}

export function planOf(applicable: ApplicableBudget, nowMs: number): BudgetPlan {
  const { budget } = applicable;
  const pos = windowOfBudget(budget).position(nowMs);
  const limitMicros = budget.limit_usd === undefined ? null : microsOfUsd(budget.limit_usd);
  const limitTokens = budget.limit_tokens ?? null;
  const measure = limitMicros ?? limitTokens;
  const alerts =
    measure === null ? [] : [...new Set(budget.alerts ?? [])].sort((a, b) => a - b).map((percent) => ({ percent, level: Math.max(1, Math.ceil((measure * percent) / 100)) }));
  return {
    budget: applicable,
    id: applicable.id,
    series: pos.series,
    from: pos.from,
    to: pos.to,
    resetAt: pos.resetAt,
    ...(pos.bucketMs ? { bucketMs: pos.bucketMs } : {}),
    limitMicros,
    limitTokens,
    block: budget.action !== 'audit',
    // Rolling windows: one alert window per period (24 buckets).
    alertWindow: pos.bucketMs ? Math.floor(pos.to / 24) : pos.to,
    alerts,
  };
}
