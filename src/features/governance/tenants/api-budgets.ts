import type { Budget } from '../../../generated/governance/budget.js';
import { BUDGET_SCOPES, type ApplicableBudget, type BudgetScope } from '../governance-types.js';
import type { TenantStore } from './tenant-store.js';
import { StoreReading } from './store-reading.js';

/** The subjects of one request, by scope (key id, user, team, organisation, customer, model, credential). */
export type BudgetSubjects = Partial<Record<BudgetScope, string | null | undefined>>;

const keyOf = (scope: string, subject: string) => `${scope}\u0000${subject}`;

/** API budgets by scope and subject, as read at one time. */
export type ApiBudgetIndex = ReadonlyMap<string, readonly ApplicableBudget[]>;

/** The budgets of `index` applying to these subjects, in scope order (key, user, team, ...). */
export function pickBudgets(index: ApiBudgetIndex, subjects: BudgetSubjects): ApplicableBudget[] {
  const out: ApplicableBudget[] = [];
  for (const scope of BUDGET_SCOPES) {
    const subject = subjects[scope];
    if (!subject) continue;
    const found = index.get(keyOf(scope, subject));
    if (found) out.push(...found);
  }
  return out;
}

/**
 * Budgets made through /v1/admin/budgets, as the budget engine reads them: indexed by scope and
 * subject (pickBudgets gives a request's), with the row id as the stable id. Read from the store at most once per
 * `ttlMs` (writes on this instance refresh at once; another instance's within the TTL).
 */
export class ApiBudgets extends StoreReading<ApiBudgetIndex> {
  constructor(store: TenantStore, ttlMs = 5000) {
    super(
      () =>
        store.list('budget').then((rows) => {
          const index = new Map<string, ApplicableBudget[]>();
          // Oldest first: a subject's budgets keep the order they were made in.
          for (const row of rows.reverse()) {
            const { scope, subject, ...budget } = row.data as unknown as { scope: BudgetScope; subject: string } & Budget;
            const key = keyOf(scope, subject);
            let list = index.get(key);
            if (!list) index.set(key, (list = []));
            list.push({ id: row.id, scope, subject, budget });
          }
          return index;
        }),
      ttlMs,
    );
  }
}
